// perf_analyzer's stability rule: the last 3 windows, no empty window, throughput and latency each
// within max/min <= 1 + p/100.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkStability, STABILITY_WINDOW } from '../../../bench/measure/stability.js';

const w = (throughput: number, latencyUs: number): { throughput: number; latencyUs: number } => ({
  throughput,
  latencyUs,
});

void describe('checkStability', () => {
  void it('needs three windows', () => {
    assert.equal(STABILITY_WINDOW, 3);
    const v = checkStability([w(100, 10), w(100, 10)], 10);
    assert.equal(v.stable, false);
    assert.match(v.reason, /2 of 3 windows/);
  });

  void it('accepts three windows within the percentage', () => {
    assert.deepEqual(checkStability([w(100, 1000), w(105, 1040), w(109, 1090)], 10), {
      stable: true,
      reason: 'stable',
    });
  });

  void it('accepts a spread of exactly 1 + p/100 (the bound is inclusive)', () => {
    assert.equal(checkStability([w(100, 500), w(110, 500), w(105, 550)], 10).stable, true);
  });

  void it('rejects a throughput spread over the limit, saying so', () => {
    const v = checkStability([w(100, 1000), w(111, 1000), w(105, 1000)], 10);
    assert.equal(v.stable, false);
    assert.match(v.reason, /throughput max\/min 1\.110 > 1\.100/);
  });

  void it('rejects a latency spread over the limit, saying so', () => {
    const v = checkStability([w(100, 1000), w(100, 1200), w(100, 1000)], 10);
    assert.equal(v.stable, false);
    assert.match(v.reason, /latency max\/min 1\.200 > 1\.100/);
  });

  void it('rejects a window that completed nothing', () => {
    const v = checkStability([w(0, 0), w(0, 0), w(0, 0)], 10);
    assert.equal(v.stable, false);
    assert.match(v.reason, /no requests/);
  });

  void it('looks at the last three windows only', () => {
    const warmup = [w(10, 90_000), w(50, 30_000)];
    assert.equal(
      checkStability([...warmup, w(100, 1000), w(101, 1001), w(99, 999)], 5).stable,
      true,
    );
    assert.equal(
      checkStability([w(100, 1000), w(101, 1001), w(99, 999), w(300, 1000)], 5).stable,
      false,
    );
  });

  void it('a stability percentage of 0 needs identical windows', () => {
    assert.equal(checkStability([w(100, 7), w(100, 7), w(100, 7)], 0).stable, true);
    assert.equal(checkStability([w(100, 7), w(100.01, 7), w(100, 7)], 0).stable, false);
  });

  void it('does not depend on units: scaling every figure keeps the verdict', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: 1, max: 1e6, noNaN: true }),
            fc.double({ min: 1, max: 1e6, noNaN: true }),
          ),
          {
            minLength: 3,
            maxLength: 6,
          },
        ),
        fc.double({ min: 0.5, max: 1000, noNaN: true }),
        fc.integer({ min: 0, max: 50 }),
        (pairs, k, pct) => {
          const a = checkStability(
            pairs.map(([t, l]) => w(t, l)),
            pct,
          ).stable;
          const b = checkStability(
            pairs.map(([t, l]) => w(t * k, l * k)),
            pct,
          ).stable;
          // Scaling can move a spread sitting exactly on the bound by one ulp; allow only that.
          const spreads = (xs: number[]): number => Math.max(...xs) / Math.min(...xs);
          const last = pairs.slice(-3);
          const onBound = [spreads(last.map((p) => p[0])), spreads(last.map((p) => p[1]))].some(
            (s) => Math.abs(s - (1 + pct / 100)) < 1e-9,
          );
          return a === b || onBound;
        },
      ),
    );
  });
});
