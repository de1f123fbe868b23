// The OCR bench's command line, checked once: client concurrencies, measuring time, warm-up, which
// server set-ups to run (the bundled configs, a `--model-config-name`, or both with --compare-gpu),
// where the result JSON goes and whether it is published.

import path from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../options/usage-error.js';

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

export function parseOcrOptions(argv: readonly string[]): OcrOptions {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        concurrency: { type: 'string', default: '1,4' },
        'duration-secs': { type: 'string', default: '20' },
        warmup: { type: 'string', default: '4' },
        'no-publish': { type: 'boolean', default: false },
        'config-name': { type: 'string' },
        'compare-gpu': { type: 'boolean', default: false },
        'out-dir': { type: 'string' },
      },
    }).values;
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
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
