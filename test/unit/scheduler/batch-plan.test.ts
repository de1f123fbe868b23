// The batch planner as a pure function: which queued requests form the next batch, and when to
// wait for the queue delay instead.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  planBatch,
  type BatchCandidate,
  type BatchLimits,
  type PlanContext,
} from '../../../src/scheduler/batch-plan.js';

const c = (rows: number, key = 'a', enqueuedNs = 0, bytes = rows * 8): BatchCandidate => ({
  rows,
  key,
  enqueuedNs,
  bytes,
});
const limits = (o: Partial<BatchLimits> = {}): BatchLimits => ({
  maxBatchSize: 8,
  preferredBatchSizes: [8],
  maxQueueDelayNs: 0,
  maxBatchBytes: 1 << 30,
  ...o,
});
const ctx = (o: Partial<PlanContext> = {}): PlanContext => ({
  nowNs: 0,
  idleInstances: 1,
  draining: false,
  ...o,
});

void describe('planBatch', () => {
  void it('has nothing to plan for an empty queue', () => {
    assert.deepEqual(planBatch([], limits(), ctx()), { kind: 'empty' });
  });

  void it('sends a lone request at once when the delay is 0', () => {
    assert.deepEqual(planBatch([c(1)], limits(), ctx()), { kind: 'dispatch', take: [0], rows: 1 });
  });

  void it('gathers every compatible request in order, up to max_batch_size rows', () => {
    const q = [c(3), c(1), c(2), c(4), c(2)];
    // 3 + 1 + 2 = 6; the 4 does not fit (10 > 8) and is skipped; the last 2 makes 8.
    assert.deepEqual(planBatch(q, limits(), ctx()), {
      kind: 'dispatch',
      take: [0, 1, 2, 4],
      rows: 8,
    });
  });

  void it('leaves requests with other non-batch dims for their own batch', () => {
    const q = [c(1, 'a'), c(1, 'b'), c(1, 'a'), c(1, 'b')];
    assert.deepEqual(planBatch(q, limits(), ctx()), { kind: 'dispatch', take: [0, 2], rows: 2 });
    assert.deepEqual(planBatch([c(1, 'b'), c(1, 'b')], limits(), ctx()), {
      kind: 'dispatch',
      take: [0, 1],
      rows: 2,
    });
  });

  void it('waits for the queue delay, measured from the oldest request, then sends what it has', () => {
    const l = limits({ maxQueueDelayNs: 1000 });
    const q = [c(1, 'a', 500), c(2, 'a', 900)];
    assert.deepEqual(planBatch(q, l, ctx({ nowNs: 1000 })), { kind: 'wait', untilNs: 1500 });
    assert.deepEqual(planBatch(q, l, ctx({ nowNs: 1499 })), { kind: 'wait', untilNs: 1500 });
    assert.deepEqual(planBatch(q, l, ctx({ nowNs: 1500 })), {
      kind: 'dispatch',
      take: [0, 1],
      rows: 3,
    });
  });

  void it('sends a full batch at once, without waiting for the delay', () => {
    const l = limits({ maxQueueDelayNs: 1e9 });
    assert.deepEqual(planBatch([c(4), c(4), c(1)], l, ctx()), {
      kind: 'dispatch',
      take: [0, 1],
      rows: 8,
    });
  });

  void it('sends the largest preferred size that can be formed, at once, leaving the rest', () => {
    const l = limits({ preferredBatchSizes: [4, 2], maxQueueDelayNs: 1e9 });
    // Running sums 1, 2, 3, 4, 5: preferred 2 and 4 are formed; 4 is the largest.
    const q = [c(1), c(1), c(1), c(1), c(1)];
    assert.deepEqual(planBatch(q, l, ctx()), { kind: 'dispatch', take: [0, 1, 2, 3], rows: 4 });
    // With the delay expired and no preferred size formed, everything gathered goes.
    assert.deepEqual(planBatch([c(3)], limits({ preferredBatchSizes: [4] }), ctx()), {
      kind: 'dispatch',
      take: [0],
      rows: 3,
    });
  });

  void it('prefers the preferred size even with no delay (Triton: largest preferred size first)', () => {
    const l = limits({ preferredBatchSizes: [4] });
    const q = [c(1), c(1), c(1), c(1), c(1), c(1)];
    assert.deepEqual(planBatch(q, l, ctx()), { kind: 'dispatch', take: [0, 1, 2, 3], rows: 4 });
  });

  void it('shares the rows between idle instances so every one gets a batch', () => {
    const q = [c(1), c(1), c(1), c(1), c(1), c(1)];
    assert.deepEqual(planBatch(q, limits(), ctx({ idleInstances: 2 })), {
      kind: 'dispatch',
      take: [0, 1, 2],
      rows: 3,
    });
    // The rest, with one instance left idle, goes as one batch.
    assert.deepEqual(planBatch(q.slice(3), limits(), ctx({ idleInstances: 1 })), {
      kind: 'dispatch',
      take: [0, 1, 2],
      rows: 3,
    });
    // Enough for two full batches: each still gets max_batch_size rows.
    const many = Array.from({ length: 20 }, () => c(1));
    const plan = planBatch(many, limits(), ctx({ idleInstances: 2 }));
    assert.equal(plan.kind === 'dispatch' && plan.rows, 8);
    // A single request is never split: it goes whole to one instance.
    assert.deepEqual(planBatch([c(5)], limits(), ctx({ idleInstances: 2 })), {
      kind: 'dispatch',
      take: [0],
      rows: 5,
    });
  });

  void it('runs each request alone when the model has no batch dim', () => {
    const l = limits({ maxBatchSize: 0, preferredBatchSizes: [] });
    assert.deepEqual(planBatch([c(1), c(1)], l, ctx()), { kind: 'dispatch', take: [0], rows: 1 });
  });

  void it('keeps a batch under the byte cap, but always takes the first request', () => {
    const l = limits({ maxBatchBytes: 100 });
    const q = [c(1, 'a', 0, 150), c(1, 'a', 0, 60), c(1, 'a', 0, 60), c(1, 'a', 0, 30)];
    assert.deepEqual(planBatch(q, l, ctx()), { kind: 'dispatch', take: [0], rows: 1 });
    assert.deepEqual(planBatch(q.slice(1), l, ctx()), {
      kind: 'dispatch',
      take: [0, 2],
      rows: 2,
    });
  });

  void it('stops waiting for the delay while draining for shutdown', () => {
    const l = limits({ maxQueueDelayNs: 1e9 });
    assert.deepEqual(planBatch([c(1)], l, ctx({ draining: true })), {
      kind: 'dispatch',
      take: [0],
      rows: 1,
    });
  });
});
