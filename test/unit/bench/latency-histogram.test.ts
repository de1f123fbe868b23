// Percentile math of the harness's HDR histograms against distributions whose quantiles are known
// exactly, against a sorted-sample nearest-rank computation, and across encode/merge.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  decodeHistogram,
  encodeHistogram,
  mergeEncoded,
  newHistogram,
  percentileUs,
  recordUs,
  summarize,
} from '../../../bench/measure/latency-histogram.js';

/** HDR with 3 significant digits reports values at most 1/1000 above the true sample (plus 1 µs). */
function assertClose(actual: number, expected: number, what: string): void {
  const tolerance = expected * 1e-3 + 1;
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `${what}: expected ${expected} ± ${tolerance.toFixed(1)}, got ${actual}`,
  );
}

/** The nearest-rank percentile of a sample: the smallest value with at least p% of values <= it. */
function nearestRank(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

void describe('latency histogram percentiles', () => {
  void it('matches a uniform distribution 1..100000 µs', () => {
    const h = newHistogram();
    for (let v = 1; v <= 100_000; v += 1) recordUs(h, v);
    const s = summarize(h);
    assert.equal(s.count, 100_000);
    assertClose(s.p50Us, 50_000, 'p50');
    assertClose(s.p90Us, 90_000, 'p90');
    assertClose(s.p95Us, 95_000, 'p95');
    assertClose(s.p99Us, 99_000, 'p99');
    assertClose(s.p999Us, 99_900, 'p99.9');
    assertClose(s.maxUs, 100_000, 'max');
    assertClose(s.avgUs, 50_000.5, 'mean');
    assertClose(s.stddevUs, 28_867.5, 'stddev');
    assert.equal(s.minUs, 1);
  });

  void it('matches the quantiles of an exponential distribution (mean 2 ms)', () => {
    // Quantile sampling: value i is the exact (i + 0.5)/n quantile, so the sample's percentiles are
    // the distribution's: -ln(1 - p) * mean.
    const n = 200_000;
    const mean = 2000;
    const h = newHistogram();
    for (let i = 0; i < n; i += 1) recordUs(h, -Math.log(1 - (i + 0.5) / n) * mean);
    for (const p of [50, 90, 99, 99.9]) {
      assertClose(percentileUs(h, p), -Math.log(1 - p / 100) * mean, `p${p}`);
    }
    assertClose(h.mean, mean, 'mean');
  });

  void it('reports a constant latency as every percentile', () => {
    const h = newHistogram();
    for (let i = 0; i < 1000; i += 1) recordUs(h, 1234);
    const s = summarize(h);
    for (const v of [s.p50Us, s.p90Us, s.p99Us, s.p999Us, s.maxUs, s.minUs]) assert.equal(v, 1234);
    assert.equal(s.stddevUs, 0);
  });

  void it('agrees with nearest-rank percentiles of any sample, within HDR resolution', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50_000_000 }), { minLength: 1, maxLength: 400 }),
        fc.constantFrom(50, 90, 95, 99, 99.9),
        (values, p) => {
          const h = newHistogram();
          for (const v of values) recordUs(h, v);
          const exact = nearestRank(
            [...values].sort((a, b) => a - b),
            p,
          );
          const got = percentileUs(h, p);
          return got >= exact && got <= exact * (1 + 1e-3) + 1;
        },
      ),
      { numRuns: 300 },
    );
  });

  void it('rounds fractional microseconds and records 0 as 1 µs', () => {
    const h = newHistogram();
    recordUs(h, 0);
    recordUs(h, 2.6);
    assert.equal(h.minNonZeroValue, 1);
    assert.equal(h.maxValue, 3);
  });

  void it('is 0 everywhere when empty', () => {
    const s = summarize(newHistogram());
    assert.deepEqual(
      Object.values(s),
      Object.values(s).map(() => 0),
    );
  });
});

void describe('encoded windows', () => {
  void it('round-trip through compressed base64 unchanged', () => {
    const h = newHistogram();
    for (let i = 1; i <= 5000; i += 1) recordUs(h, i * 7);
    const back = decodeHistogram(encodeHistogram(h));
    // The live histogram keeps the exact max; a decoded one knows only its bucket's top value.
    const { maxUs, ...rest } = summarize(back);
    const { maxUs: liveMax, ...liveRest } = summarize(h);
    assert.deepEqual(rest, liveRest);
    assertClose(maxUs, liveMax, 'max');
  });

  void it('merge into exactly the histogram of all their values', () => {
    const a = newHistogram();
    const b = newHistogram();
    const all = newHistogram();
    for (let i = 1; i <= 3000; i += 1) {
      const v = ((i * 37) % 9001) + 1;
      (i % 3 === 0 ? a : b).recordValue(v);
      all.recordValue(v);
    }
    const merged = mergeEncoded([encodeHistogram(a), encodeHistogram(b)]);
    const { maxUs, ...rest } = summarize(merged);
    const { maxUs: allMax, ...allRest } = summarize(all);
    assert.deepEqual(rest, allRest);
    assertClose(maxUs, allMax, 'max');
  });

  void it('merge to an empty histogram when there are none', () => {
    assert.equal(mergeEncoded([]).totalCount, 0);
  });
});
