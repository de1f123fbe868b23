// The limits a candidate must meet, one table: each threshold's flag (also its key in a --thresholds
// JSON file), its default and what it limits. Read once (defaults < file < flags), then frozen.

import { readFile } from 'node:fs/promises';
import { usage } from './usage-error.js';

export interface Thresholds {
  /** Largest absolute difference of any output element. */
  readonly maxAbsDiff: number;
  /** Relative L2 difference per output: ||candidate - serving|| / ||serving||. */
  readonly maxRelDiff: number;
  /** Least cosine similarity of any row of a floating-point output. */
  readonly minCosine: number;
  /** Classifier outputs: share of rows whose arg-max agrees. */
  readonly minTop1: number;
  /** Classifier outputs: share of rows whose top-k index sets agree. */
  readonly minTopk: number;
  /** Candidate p50 latency / serving p50, at every batch size. */
  readonly maxP50Ratio: number;
  /** Candidate p99 latency / serving p99; off (Infinity) unless given: p99 of a short run is noisy. */
  readonly maxP99Ratio: number;
  /**
   * A latency ratio fails only when the candidate is also slower by more than this many ms: on a
   * model that runs in microseconds, timer and scheduling noise alone moves the ratio past 1.5.
   */
  readonly latencyFloorMs: number;
}

type Key = keyof Thresholds;

/** Flag (and file key) -> field, default, and what --help says. */
export const THRESHOLD_FLAGS: Readonly<
  Record<string, { readonly key: Key; readonly default: number; readonly help: string }>
> = Object.freeze({
  'max-abs-diff': {
    key: 'maxAbsDiff',
    default: 1e-4,
    help: 'largest absolute difference of any output element',
  },
  'max-rel-diff': {
    key: 'maxRelDiff',
    default: 1e-3,
    help: 'relative L2 difference per output, |c - s| / |s|',
  },
  'min-cosine': {
    key: 'minCosine',
    default: 0.9999,
    help: 'least cosine similarity of any row (floating-point outputs)',
  },
  'min-top1': {
    key: 'minTop1',
    default: 0.99,
    help: 'share of rows whose top-1 class agrees (classifier outputs)',
  },
  'min-topk': {
    key: 'minTopk',
    default: 0.95,
    help: 'share of rows whose top-k class sets agree (classifier outputs)',
  },
  'max-p50-ratio': {
    key: 'maxP50Ratio',
    default: 1.5,
    help: 'candidate p50 latency / serving p50, at each batch size',
  },
  'max-p99-ratio': {
    key: 'maxP99Ratio',
    default: Infinity,
    help: 'candidate p99 latency / serving p99 (off unless given)',
  },
  'latency-floor-ms': {
    key: 'latencyFloorMs',
    default: 0.05,
    help: 'a latency ratio fails only when the candidate is also this many ms slower',
  },
});

export function defaultThresholds(): Thresholds {
  const out: Record<string, number> = {};
  for (const spec of Object.values(THRESHOLD_FLAGS)) out[spec.key] = spec.default;
  return out as unknown as Thresholds;
}

/** A threshold value: a finite non-negative number (`Infinity` for none). */
export function thresholdValue(flag: string, text: unknown): number {
  const n = typeof text === 'number' ? text : typeof text === 'string' ? Number(text) : NaN;
  if (text === '' || Number.isNaN(n) || n < 0) {
    throw usage(`--${flag} expects a non-negative number, got ${JSON.stringify(text)}`);
  }
  return n;
}

/**
 * The thresholds file: a JSON object whose keys are the threshold flags without `--`, e.g.
 * `{ "max-abs-diff": 0.001, "max-p50-ratio": 1.2 }`. An unknown key is a usage error naming the
 * known ones, so a typo never silently leaves a default in place.
 */
export async function readThresholdsFile(file: string): Promise<Partial<Record<Key, number>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw usage(`--thresholds: expected a readable JSON file at ${file}, got ${code}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw usage(`--thresholds: ${file} is not JSON (${(e as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usage(`--thresholds: expected a JSON object in ${file}, got ${JSON.stringify(parsed)}`);
  }
  const out: Partial<Record<Key, number>> = {};
  for (const [k, v] of Object.entries(parsed)) {
    const spec = THRESHOLD_FLAGS[k];
    if (spec === undefined) {
      throw usage(
        `--thresholds: unknown key "${k}" in ${file}; expected one of ${Object.keys(THRESHOLD_FLAGS).join(', ')}`,
      );
    }
    out[spec.key] = thresholdValue(k, v);
  }
  return out;
}
