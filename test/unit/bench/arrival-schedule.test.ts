// Open-loop arrival times: evenly spaced, or a Poisson process, reproducible from a seed; and how
// a level is split between generator threads.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArrivalSchedule, seededRandom } from '../../../bench/load/arrival-schedule.js';
import { splitLevel } from '../../../bench/load/messages.js';

function gaps(schedule: ArrivalSchedule, n: number): number[] {
  let prev = schedule.take();
  return Array.from({ length: n }, () => {
    const t = schedule.take();
    const g = t - prev;
    prev = t;
    return g;
  });
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const stddev = (xs: readonly number[]): number => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};

void describe('ArrivalSchedule', () => {
  void it('spaces constant arrivals exactly 1/rate apart, offset by the phase', () => {
    const s = new ArrivalSchedule(1000, 250, 'constant', 1, 0.5);
    assert.equal(s.peek(), 1002);
    assert.deepEqual(
      gaps(s, 5).map((g) => Number(g.toFixed(9))),
      [4, 4, 4, 4, 4],
    );
  });

  void it('draws Poisson gaps with mean 1/rate and a coefficient of variation of 1', () => {
    const g = gaps(new ArrivalSchedule(0, 500, 'poisson', 42), 50_000);
    // Exponential gaps: mean = sd = 2 ms. With 50k samples both are within 2% (about 4.5 sigma).
    assert.ok(Math.abs(mean(g) - 2) < 0.04, `mean gap ${mean(g)}`);
    assert.ok(Math.abs(stddev(g) / mean(g) - 1) < 0.02, `cv ${stddev(g) / mean(g)}`);
    assert.ok(g.every((x) => x >= 0 && Number.isFinite(x)));
    // P(gap > 3 * mean) = e^-3 for an exponential distribution.
    const tail = g.filter((x) => x > 6).length / g.length;
    assert.ok(Math.abs(tail - Math.exp(-3)) < 0.005, `tail ${tail}`);
  });

  void it('repeats the same arrivals for the same seed, and others for another', () => {
    const a = gaps(new ArrivalSchedule(0, 100, 'poisson', 7), 20);
    assert.deepEqual(gaps(new ArrivalSchedule(0, 100, 'poisson', 7), 20), a);
    assert.notDeepEqual(gaps(new ArrivalSchedule(0, 100, 'poisson', 8), 20), a);
  });

  void it('rejects a rate that is not positive', () => {
    assert.throws(
      () => new ArrivalSchedule(0, 0, 'constant', 1),
      /request rate must be > 0, got 0/,
    );
  });

  void it('seededRandom stays in [0, 1)', () => {
    const r = seededRandom(123);
    for (let i = 0; i < 10_000; i += 1) {
      const x = r();
      assert.ok(x >= 0 && x < 1);
    }
  });
});

void describe('splitLevel', () => {
  void it('spreads concurrency over threads by whole connections', () => {
    const shares = splitLevel({ kind: 'concurrency', concurrency: 7 }, 3);
    assert.deepEqual(
      shares.map((s) => (s.kind === 'concurrency' ? s.concurrency : -1)),
      [3, 2, 2],
    );
    assert.deepEqual(
      splitLevel({ kind: 'concurrency', concurrency: 1 }, 2).map((s) =>
        s.kind === 'concurrency' ? s.concurrency : -1,
      ),
      [1, 0],
    );
  });

  void it('splits a rate evenly, with distinct seeds and interleaved phases', () => {
    const shares = splitLevel(
      { kind: 'request-rate', rate: 300, distribution: 'poisson', seed: 5 },
      3,
    );
    assert.equal(shares.length, 3);
    const rates = shares.map((s) => (s.kind === 'request-rate' ? [s.rate, s.seed, s.phase] : []));
    assert.deepEqual(
      rates.map((r) => r[0]),
      [100, 100, 100],
    );
    assert.equal(new Set(rates.map((r) => r[1])).size, 3);
    assert.deepEqual(
      rates.map((r) => r[2]),
      [0, 1 / 3, 2 / 3],
    );
  });

  void it('gives one thread everything when there is a single (or in-process) thread', () => {
    assert.deepEqual(splitLevel({ kind: 'concurrency', concurrency: 5 }, 0), [
      { kind: 'concurrency', concurrency: 5 },
    ]);
  });
});
