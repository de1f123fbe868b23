// The OCR bench's command line, checked once: client concurrencies, measuring time, warm-up, which
// server set-ups to run (the bundled configs, a `--model-config-name`, or both with --compare-gpu),
// where the result JSON goes and whether it is published.

import path from 'node:path';
import { UsageError } from '../options/usage-error.js';
import { HELP_FLAG, parseFlags, type FlagTable } from '../options/flag-parser.js';

/** The config name --compare-gpu measures against the bundled configs when --config-name is absent. */
export const GPU_CONFIG_NAME = 'webgpu';

export interface OcrOptions {
  readonly concurrency: readonly number[];
  readonly durationMs: number;
  readonly warmup: number;
  readonly publish: boolean;
  /** The set-ups to run, in order: null is each model's config.pbtxt, else a `--model-config-name`. */
  readonly configNames: readonly (string | null)[];
  /** Where ocr.json is written; undefined: a new folder under bench/out/. */
  readonly outDir: string | undefined;
}

/** Every flag of `infernode-bench ocr`: parsing and its --help read this table. */
export const OCR_FLAGS = {
  concurrency: {
    kind: 'string',
    default: '1,4',
    help: 'Comma list of client concurrencies, 1..64',
  },
  'duration-secs': { kind: 'string', default: '20', help: 'Measured time per concurrency, s' },
  warmup: { kind: 'string', default: '4', help: 'Warm-up images per concurrency' },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  'config-name': {
    kind: 'string',
    help: 'Serve each model with --model-config-name NAME (configs/NAME.pbtxt)',
  },
  'compare-gpu': {
    kind: 'flag',
    help: 'The bundled configs, then --config-name (default webgpu), each on a fresh server',
  },
  'out-dir': { kind: 'string', help: 'Where ocr.json is written (a new folder under bench/out)' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

export function parseOcrOptions(argv: readonly string[]): OcrOptions {
  const values = parseFlags(argv, OCR_FLAGS).values;
  const concurrency = values.concurrency.split(',').map((t) => {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 1 || n > 64)
      throw new UsageError(`--concurrency: expected integers 1..64, got "${t}"`);
    return n;
  });
  const seconds = Number(values['duration-secs']);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(
      `--duration-secs: expected a positive number, got "${values['duration-secs']}"`,
    );
  const warmup = Number(values.warmup);
  if (!Number.isInteger(warmup) || warmup < 0)
    throw new UsageError(`--warmup: expected an integer >= 0, got "${values.warmup}"`);
  const configName = values['config-name'];
  // The server looks the name up as model_repository/<model>/configs/<name>.pbtxt.
  if (configName !== undefined && !/^[\w.-]+$/.test(configName))
    throw new UsageError(
      `--config-name: expected a file name without .pbtxt (letters, digits, _ . -), got "${configName}"`,
    );
  const outDir = values['out-dir'];
  if (outDir === '') throw new UsageError('--out-dir: expected a folder');
  return {
    concurrency,
    durationMs: seconds * 1000,
    warmup,
    publish: !values['no-publish'],
    configNames: values['compare-gpu']
      ? [null, configName ?? GPU_CONFIG_NAME]
      : [configName ?? null],
    outDir: outDir === undefined ? undefined : path.resolve(outDir),
  };
}
