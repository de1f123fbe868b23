// The flags of `infernode validate`, parsed once into a frozen ValidateArgs. A bad flag, a missing
// required one or a value of the wrong form is a UsageError (exit status 2) that says what was
// expected and what arrived.

import {
  defaultThresholds,
  readThresholdsFile,
  THRESHOLD_FLAGS,
  thresholdValue,
} from './thresholds.js';
import type { Thresholds } from './thresholds.js';
import { usage } from './usage-error.js';

export interface ValidateArgs {
  readonly help: boolean;
  readonly modelRepository: string;
  readonly model: string;
  /** The serving version; undefined: the one the model's version policy serves. */
  readonly version: number | undefined;
  /** A version number in the repository, or a path to an .onnx file. */
  readonly candidate: string;
  readonly reportFile: string | undefined;
  readonly jsonFile: string | undefined;
  readonly thresholds: Thresholds;
  /** Classifier outputs: k of the top-k agreement. */
  readonly topK: number;
  /** A directory of KServe v2 JSON inference requests to replay (request-files.ts). */
  readonly requests: string | undefined;
  /** How many inputs to generate when there are no requests and no warmup samples. */
  readonly samples: number;
  readonly seed: number;
  /** Batch sizes timed; undefined: 1 and min(8, max_batch_size). */
  readonly batchSizes: readonly number[] | undefined;
  /** Timed runs per model and batch size. */
  readonly iterations: number;
}

const VALUE_FLAGS = [
  'model-repository',
  'model',
  'version',
  'candidate',
  'report',
  'json',
  'thresholds',
  'requests',
  'top-k',
  'samples',
  'seed',
  'batch-sizes',
  'iterations',
  ...Object.keys(THRESHOLD_FLAGS),
] as const;

export const VALIDATE_HELP = `usage: infernode validate --model-repository <dir> --model <name> --candidate <version | file.onnx>
                         [--version <serving version>] [--report <file.md>] [--json <file.json>]
                         [--thresholds <file.json>] [threshold flags] [--requests <dir>] [--samples <n>] [--seed <n>]
                         [--batch-sizes <n,n,...>] [--iterations <n>] [--top-k <n>]

Loads the serving version and the candidate of a model with ONNX Runtime (in this process, no
server), checks that the candidate fits the model's config and the serving version's signature,
runs the same samples through both and compares their outputs and latency.
Exit status: 0 every check passed, 1 a check failed, 2 a usage error.

  --model-repository <dir>   the model repository
  --model <name>             the model
  --version <n>              the serving version (default: the highest the version policy serves,
                             the candidate's directory left out)
  --candidate <n | file>     a version directory of the model, or a path to an .onnx file
  --report <file.md>         write the Markdown report there (default: print it)
  --json <file.json>         write the JSON report there
  --thresholds <file.json>   thresholds as a JSON object, keys as the flags below without --
  --requests <dir>           replay these KServe v2 JSON inference requests (*.json), rather than
                             the model's model_warmup samples or generated ones
  --samples <n>              generated samples, when there are neither (32)
  --seed <n>                 seed of generated inputs (1)
  --batch-sizes <n,...>      batch sizes timed (1 and min(8, max_batch_size))
  --iterations <n>           timed runs per model and batch size (40)
  --top-k <n>                k of the top-k agreement of classifier outputs (5)
${Object.entries(THRESHOLD_FLAGS)
  .map(([f, s]) => `  --${`${f} <x>`.padEnd(25)}${s.help} (${s.default})`)
  .join('\n')}
`;

function positiveInt(flag: string, text: string, min = 1): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) {
    throw usage(`--${flag} expects a whole number >= ${min}, got "${text}"`);
  }
  return n;
}

export async function parseValidateArgs(argv: readonly string[]): Promise<ValidateArgs> {
  const values = new Map<string, string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    const flag = m?.[1];
    if (m === null || flag === undefined || !(VALUE_FLAGS as readonly string[]).includes(flag)) {
      throw usage(
        `validate: unknown argument "${arg}"; expected one of ${VALUE_FLAGS.map((f) => `--${f}`).join(', ')} (see --help)`,
      );
    }
    let value = m[2];
    if (value === undefined) {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) {
        throw usage(
          `--${flag} expects a value, got ${value === undefined ? 'none' : `"${value}"`}`,
        );
      }
      i++;
    }
    if (values.has(flag)) throw usage(`--${flag} given twice ("${values.get(flag)}", "${value}")`);
    values.set(flag, value);
  }
  const required = (flag: string): string => {
    const v = values.get(flag);
    if (v === undefined || v === '') {
      if (help) return '';
      throw usage(`validate: --${flag} is required (see infernode validate --help)`);
    }
    return v;
  };
  const modelRepository = required('model-repository');
  const model = required('model');
  const candidate = required('candidate');

  const fileThresholds =
    values.get('thresholds') !== undefined
      ? await readThresholdsFile(values.get('thresholds') as string)
      : {};
  const thresholds: Record<string, number> = { ...defaultThresholds(), ...fileThresholds };
  for (const [flag, spec] of Object.entries(THRESHOLD_FLAGS)) {
    const v = values.get(flag);
    if (v !== undefined) thresholds[spec.key] = thresholdValue(flag, v);
  }
  const batchText = values.get('batch-sizes');
  const version = values.get('version');
  return Object.freeze({
    help,
    modelRepository,
    model,
    version: version === undefined ? undefined : positiveInt('version', version),
    candidate,
    reportFile: values.get('report'),
    jsonFile: values.get('json'),
    requests: values.get('requests'),
    thresholds: Object.freeze(thresholds) as unknown as Thresholds,
    topK: positiveInt('top-k', values.get('top-k') ?? '5'),
    samples: positiveInt('samples', values.get('samples') ?? '32'),
    seed: positiveInt('seed', values.get('seed') ?? '1', 0),
    batchSizes:
      batchText === undefined
        ? undefined
        : Object.freeze(batchText.split(',').map((b) => positiveInt('batch-sizes', b.trim()))),
    iterations: positiveInt('iterations', values.get('iterations') ?? '40'),
  });
}
