// perf_analyzer's `start:end:step` ranges for --concurrency-range and --request-rate-range, plus one
// extension: a step written `xK` multiplies instead of adding (`1:64:x8` -> 1, 8, 64), because
// latency-vs-load curves are read on a log scale.

import { UsageError } from './usage-error.js';

export interface LoadRange {
  readonly start: number;
  /** 0 means "no end": keep increasing until --latency-threshold is exceeded (perf_analyzer). */
  readonly end: number;
  readonly step: { readonly kind: 'add' | 'multiply'; readonly by: number };
}

/** Levels that an open-ended range (end 0) may reach before the sweep stops anyway. */
export const OPEN_RANGE_LIMIT = 64;

export function parseLoadRange(flag: string, text: string, integer: boolean): LoadRange {
  const parts = text.split(':');
  if (parts.length > 3 || parts.some((p) => p.trim() === '')) {
    throw new UsageError(`${flag}: expected start[:end[:step]] (e.g. 1:64:x8), got "${text}"`);
  }
  const num = (s: string, what: string): number => {
    const n = Number(s);
    if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
      const kind = integer ? 'a non-negative integer' : 'a non-negative number';
      throw new UsageError(`${flag}: ${what} must be ${kind}, got "${s}" in "${text}"`);
    }
    return n;
  };
  const start = num(parts[0] ?? '', 'start');
  if (start <= 0) throw new UsageError(`${flag}: start must be > 0, got "${text}"`);
  const end = parts[1] === undefined ? start : num(parts[1], 'end');
  if (end !== 0 && end < start) {
    throw new UsageError(`${flag}: end (${end}) is below start (${start}) in "${text}"`);
  }
  const stepText = parts[2] ?? '1';
  const multiply = stepText.startsWith('x');
  const by = num(multiply ? stepText.slice(1) : stepText, 'step');
  if (multiply ? by <= 1 : by <= 0) {
    throw new UsageError(
      `${flag}: step must be ${multiply ? 'x<factor> with factor > 1' : '> 0'}, got "${stepText}"`,
    );
  }
  return { start, end, step: { kind: multiply ? 'multiply' : 'add', by } };
}

/**
 * The levels of a range in order. Computed from the index rather than by repeated addition, so
 * `0.1:0.5:0.1` does not drift; the end is included when the steps land on it (or within 1e-9).
 */
export function* rangeLevels(range: LoadRange): Generator<number> {
  const { start, end, step } = range;
  for (let i = 0; i < 100_000; i += 1) {
    const raw = step.kind === 'add' ? start + i * step.by : start * step.by ** i;
    const value = Math.round(raw * 1e9) / 1e9;
    if (end === 0 ? i >= OPEN_RANGE_LIMIT : value > end + 1e-9) return;
    yield value;
  }
}

export function formatLoadRange(range: LoadRange): string {
  const step = range.step.kind === 'multiply' ? `x${range.step.by}` : String(range.step.by);
  return `${range.start}:${range.end}:${step}`;
}
