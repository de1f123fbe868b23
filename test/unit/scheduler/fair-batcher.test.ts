// Fair dequeuing through the scheduler shell and the dynamic batcher (manual target and clock): a
// batch may mix tenants and is formed from the fair order, preferred sizes and the queue delay
// still decide when it goes, and preserve_ordering still answers in arrival order.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchingScheduler } from '../../../src/scheduler/create-scheduler.js';
import type { BatcherSettings } from '../../../src/scheduler/dynamic-batcher.js';
import { priorityPlan } from '../../../src/scheduler/queue-policy.js';
import { floats, flush, ManualTarget, recorder, reporter, request } from './fixtures.js';
import { ManualClock } from './manual-clock.js';

const A = { name: 'a', weight: 1 };
const B = { name: 'b', weight: 1 };

function setup(settings: Partial<BatcherSettings> = {}) {
  const clock = new ManualClock();
  const target = new ManualTarget(1);
  const batcher = batchingScheduler(
    target,
    reporter(),
    {
      maxBatchSize: 4,
      preferredBatchSizes: [4],
      maxQueueDelayUs: 0,
      preserveOrdering: false,
      priorities: priorityPlan(undefined),
      ...settings,
    },
    { clock },
  );
  return { clock, target, batcher, ...recorder(batcher) };
}

/** The first IN value of each member of run `i`: the seed * 100 of the request it came from. */
const seedsOf = (target: ManualTarget, i: number): number[] => {
  const d = target.runs[i]?.request.inputs[0];
  if (d === undefined) return [];
  const v = new Float32Array(d.buffer, d.byteOffset, d.byteLength / 4);
  return [...v].filter((_, k) => k % 2 === 0).map((x) => x / 100);
};

void describe('DynamicBatcher: fairness across tenants', () => {
  void it('forms batches from the fair order, mixing tenants', async () => {
    const { target, send, outcomes } = setup();
    send(request({ seed: 1, tenant: A })); // runs alone at once
    for (let i = 2; i <= 9; i++) send(request({ seed: i, tenant: A }));
    send(request({ seed: 51, tenant: B }));
    send(request({ seed: 52, tenant: B }));
    target.complete(0);
    await flush();
    assert.deepEqual(seedsOf(target, 1), [2, 51, 3, 52]);
    target.complete(1);
    await flush();
    assert.deepEqual(seedsOf(target, 2), [4, 5, 6, 7]);
    // Each member got its own rows back.
    assert.deepEqual(floats(outcomes[9]?.result?.outputs[0]?.data as Uint8Array), [10200, 10202]);
  });

  void it('still waits out max_queue_delay for a preferred size across tenants', async () => {
    const { clock, target, send } = setup({ maxQueueDelayUs: 1000 });
    send(request({ seed: 1, tenant: A }));
    send(request({ seed: 2, tenant: B }));
    send(request({ seed: 3, tenant: A }));
    await flush();
    assert.equal(target.runs.length, 0);
    send(request({ seed: 4, tenant: B }));
    await flush();
    assert.deepEqual(seedsOf(target, 0), [1, 2, 3, 4]); // the preferred size, at once
    send(request({ seed: 5, tenant: A }));
    clock.advanceUs(999);
    await flush();
    assert.equal(target.runs.length, 1);
    target.complete(0);
    clock.advanceUs(1);
    await flush();
    assert.deepEqual(seedsOf(target, 1), [5]);
  });

  void it('answers in arrival order under preserve_ordering, though B is served earlier', async () => {
    const { target, send, order } = setup({
      maxBatchSize: 1,
      preferredBatchSizes: [1],
      preserveOrdering: true,
    });
    for (let i = 0; i < 3; i++) send(request({ seed: i + 1, tenant: A }));
    send(request({ seed: 9, tenant: B }));
    for (let run = 0; run < 4; run++) {
      target.complete(run);
      await flush();
    }
    // Served a, a, b, a; answered in the order they came.
    assert.deepEqual(
      [0, 1, 2, 3].map((r) => seedsOf(target, r)[0]),
      [1, 2, 9, 3],
    );
    assert.deepEqual(order, [0, 1, 2, 3]);
  });
});
