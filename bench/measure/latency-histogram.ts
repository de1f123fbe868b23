// Latency recording in HDR histograms (hdr-histogram-js, its pure-JS build): values in whole
// microseconds, 3 significant digits, so any reported percentile is within 0.1% of the true sample
// value. Windows travel between threads and into result files as HdrHistogram's compressed base64,
// so a merged window is exactly the union of its parts, and any percentile can be recomputed later.

import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** The percentiles every report carries (perf_analyzer's four, plus p99.9 and max). */
export interface LatencySummary {
  readonly count: number;
  readonly avgUs: number;
  readonly stddevUs: number;
  readonly minUs: number;
  readonly p50Us: number;
  readonly p90Us: number;
  readonly p95Us: number;
  readonly p99Us: number;
  readonly p999Us: number;
  readonly maxUs: number;
}

export const SIGNIFICANT_DIGITS = 3;

export function newHistogram(): Histogram {
  // Pure JS (useWebAssembly: false): no async WASM start-up in every worker, and the recording cost
  // per value is a few array writes either way. 32-bit buckets hold 2^31 samples per value, far
  // above any window; autoResize lets a pathological 10-minute latency still be recorded.
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
    bitBucketSize: 32,
    autoResize: true,
    useWebAssembly: false,
  });
}

/** Records one latency in microseconds (fractions are rounded; 0 counts as 1 µs). */
export function recordUs(h: Histogram, us: number): void {
  h.recordValue(Math.max(1, Math.round(us)));
}

/**
 * Value at percentile `p` (0 < p <= 100): the smallest recorded value such that at least p% of all
 * values are <= it (the nearest-rank definition), reported as the highest value HDR cannot
 * distinguish from it. 0 for an empty histogram.
 */
export function percentileUs(h: Histogram, p: number): number {
  return h.totalCount === 0 ? 0 : h.getValueAtPercentile(p);
}

export function summarize(h: Histogram): LatencySummary {
  const empty = h.totalCount === 0;
  return {
    count: h.totalCount,
    avgUs: empty ? 0 : h.mean,
    stddevUs: empty ? 0 : h.stdDeviation,
    minUs: empty ? 0 : h.minNonZeroValue,
    p50Us: percentileUs(h, 50),
    p90Us: percentileUs(h, 90),
    p95Us: percentileUs(h, 95),
    p99Us: percentileUs(h, 99),
    p999Us: percentileUs(h, 99.9),
    maxUs: empty ? 0 : h.maxValue,
  };
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(encoded: string): Histogram {
  return hdr.decodeFromCompressedBase64(encoded, 32, false);
}

/** One histogram holding every value of the encoded ones (an empty list gives an empty one). */
export function mergeEncoded(encoded: readonly string[]): Histogram {
  const merged = newHistogram();
  for (const e of encoded) merged.add(decodeHistogram(e));
  return merged;
}
