// From boundary readings to figures: a window's rates and latencies, the server's breakdown from
// stats counters, CPU shares, and a level's summary over its last three windows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  breakdown,
  parseServerCounters,
  subtractCounters,
} from '../../../bench/measure/server-stats.js';
import { cpuCores, summarizeLevel } from '../../../bench/sweep/window-math.js';
import { counters, window } from './result-fixture.js';

void describe('server stats', () => {
  const stats = (n: number): unknown => ({
    model_stats: [
      { name: 'other', version: '1', inference_stats: {} },
      {
        name: 'mlp',
        version: '1',
        inference_count: 10 * n,
        execution_count: 4 * n,
        inference_stats: {
          success: { count: 10 * n, ns: 5_000_000 * n },
          fail: { count: 0, ns: 0 },
          queue: { count: 10 * n, ns: 1_000_000 * n },
          compute_input: { count: 10 * n, ns: 100_000 * n },
          compute_infer: { count: 10 * n, ns: 3_000_000 * n },
          compute_output: { count: 10 * n, ns: 200_000 * n },
        },
      },
    ],
  });

  void it('diffs cumulative counters into per-request averages and the batch size', () => {
    const before = parseServerCounters(stats(1), 'mlp', '');
    const after = parseServerCounters(stats(3), 'mlp', '1');
    const b = breakdown(subtractCounters(after, before));
    assert.equal(b.requests, 20);
    assert.equal(b.inferences, 20);
    assert.equal(b.executions, 8);
    assert.equal(b.avgBatchSize, 2.5);
    assert.equal(b.avgRequestUs, 500);
    assert.equal(b.avgQueueUs, 100);
    assert.equal(b.avgComputeInputUs, 10);
    assert.equal(b.avgComputeInferUs, 300);
    assert.equal(b.avgComputeOutputUs, 20);
    assert.equal(b.avgOverheadUs, 70);
  });

  void it('names the model it could not find', () => {
    assert.throws(
      () => parseServerCounters(stats(1), 'mlp', '2'),
      /no entry for model "mlp" version "2"/,
    );
    assert.throws(() => parseServerCounters({}, 'mlp', ''), /no model_stats array/);
  });

  void it('reports zeros, not NaN, for an idle window', () => {
    const b = breakdown(subtractCounters(counters(5, 1, 1), counters(5, 1, 1)));
    assert.ok(Object.values(b).every((v) => v === 0));
  });
});

void describe('windows and levels', () => {
  void it('computes a window: rates from its own duration, latencies from its histogram', () => {
    const w = window(0, 500, 1000, 2000, null);
    assert.equal(w.durationMs, 1000);
    assert.equal(w.reqPerSec, 500);
    assert.equal(w.inferPerSec, 500);
    assert.ok(Math.abs(w.latency.p50Us - 1500) <= 2);
    assert.ok(Math.abs(w.stabilityLatencyUs - w.latency.avgUs) < 1e-9);
  });

  void it('summarizes a level over its last three windows only', () => {
    const windows = [
      window(0, 10, 90_000, 99_000, null),
      window(1, 100, 1000, 1000, null),
      window(2, 200, 1000, 1000, null),
      window(3, 300, 1000, 1000, null),
    ];
    const s = summarizeLevel(windows, 4, 99);
    assert.equal(s.windows, 3);
    assert.equal(s.requests, 600);
    assert.equal(s.inferences, 2400);
    assert.equal(s.reqPerSec, 200);
    assert.equal(s.inferPerSec, 800);
    assert.equal(s.latency.maxUs, 1000);
    assert.equal(s.percentileUs, 1000);
    assert.equal(s.avgSendUs, 10);
    assert.equal(s.avgRecvUs, 20);
    assert.equal(s.server, null);
  });

  void it('adds server counters across windows before averaging', () => {
    const windows = [
      window(0, 100, 1000, 1000, counters(100, 50, 500)),
      window(1, 300, 1000, 1000, counters(300, 150, 500)),
    ];
    const s = summarizeLevel(windows, 1, -1);
    assert.equal(s.server?.requests, 400);
    assert.equal(s.server?.avgQueueUs, (100 * 50 + 300 * 150) / 400);
  });

  void it('turns CPU times into cores and shows what other processes used', () => {
    const c = cpuCores([
      { wallMs: 1000, generatorMs: 200, generatorThreads: 2, serverMs: 1500, machineMs: 1900 },
      { wallMs: 1000, generatorMs: 200, generatorThreads: 2, serverMs: 1500, machineMs: 1900 },
    ]);
    assert.equal(c.generator, 0.2);
    assert.equal(c.generatorPerThread, 0.1);
    assert.equal(c.server, 1.5);
    assert.ok(Math.abs((c.other ?? -1) - 0.2) < 1e-9);
    const unknown = cpuCores([
      { wallMs: 1000, generatorMs: 10, generatorThreads: 1, serverMs: null, machineMs: null },
    ]);
    assert.equal(unknown.server, null);
    assert.equal(unknown.other, null);
  });
});
