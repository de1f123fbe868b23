// The scheduler factory reads the frozen config: dynamic_batching gives the batcher its knobs
// (from real config.pbtxt text through the config pipeline), otherwise batching is disabled (the
// direct path, direct-path.test.ts). Plus the real clock's promise: a timer never fires early.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  batcherSettings,
  createScheduler,
  DIRECT_SETTINGS,
} from '../../../src/scheduler/create-scheduler.js';
import { levelOf, policyOf } from '../../../src/scheduler/queue-policy.js';
import { SYSTEM_CLOCK } from '../../../src/scheduler/scheduler-clock.js';
import {
  flush,
  ManualTarget,
  modelConfig as config,
  recorder,
  reporter,
  request,
} from './fixtures.js';
import { ManualClock } from './manual-clock.js';

const IO =
  'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }';

void describe('createScheduler', () => {
  void it('disables batching without dynamic_batching', async () => {
    const c = config(`platform: "onnxruntime_onnx" max_batch_size: 8 ${IO}`);
    assert.equal(batcherSettings(c), undefined);
    assert.equal(DIRECT_SETTINGS.maxBatchSize, 0);
    assert.equal(DIRECT_SETTINGS.maxQueueDelayUs, 0);
    assert.equal(DIRECT_SETTINGS.priorities.levels, 0);
    assert.deepEqual(policyOf(DIRECT_SETTINGS.priorities, 1), {
      timeoutAction: 'REJECT',
      defaultTimeoutUs: 0,
      allowTimeoutOverride: false,
      maxQueueSize: 0,
    });
    // Behind a busy instance, single-row requests that a batcher would merge run one by one.
    const target = new ManualTarget(1);
    const { send } = recorder(createScheduler(c, target, reporter()));
    for (let seed = 0; seed < 3; seed++) send(request({ seed }));
    for (let run = 0; run < 3; run++) {
      target.complete(run);
      await flush();
    }
    assert.deepEqual(target.batches, [1, 1, 1]);
  });

  void it('uses the batcher with the knobs as Triton spells them', () => {
    const c = config(`platform: "onnxruntime_onnx" max_batch_size: 16 ${IO}
      dynamic_batching {
        preferred_batch_size: [ 4, 8 ]
        max_queue_delay_microseconds: 500
        priority_levels: 2
        default_priority_level: 2
        default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 100000
                               allow_timeout_override: true max_queue_size: 64 }
        priority_queue_policy { key: 1 value: { max_queue_size: 4 } }
      }`);
    const s = batcherSettings(c);
    assert.ok(s !== undefined);
    assert.equal(s.maxBatchSize, 16);
    assert.deepEqual(s.preferredBatchSizes, [4, 8]);
    assert.equal(s.maxQueueDelayUs, 500);
    assert.equal(s.preserveOrdering, false);
    assert.equal(levelOf(s.priorities, 0), 2);
    assert.deepEqual(policyOf(s.priorities, 2), {
      timeoutAction: 'DELAY',
      defaultTimeoutUs: 100000,
      allowTimeoutOverride: true,
      maxQueueSize: 64,
    });
    assert.equal(policyOf(s.priorities, 1).maxQueueSize, 4);
    assert.equal(policyOf(s.priorities, 1).timeoutAction, 'REJECT');
    // The batcher's queue delay holds a lone request; the direct path would run it at once.
    const clock = new ManualClock();
    const target = new ManualTarget(1);
    const { send } = recorder(createScheduler(c, target, reporter(), { clock }));
    send(request());
    assert.equal(target.runs.length, 0);
    clock.advanceUs(500);
    assert.equal(target.runs.length, 1);
  });

  void it('defaults an empty dynamic_batching {} to max_batch_size batches with no delay', () => {
    const s = batcherSettings(
      config(`platform: "onnxruntime_onnx" max_batch_size: 8 ${IO} dynamic_batching { }`),
    );
    assert.deepEqual(s?.preferredBatchSizes, [8]);
    assert.equal(s?.maxQueueDelayUs, 0);
    assert.equal(s?.priorities.levels, 0);
  });
});

void describe('SYSTEM_CLOCK', () => {
  void it('never fires a timer before its deadline on the hrtime clock', async () => {
    const deadlines = [1, 100_000, 1_500_000, 2_000_000].map((ns) => {
      const due = SYSTEM_CLOCK.nowNs() + ns;
      return new Promise<number>((resolve) =>
        SYSTEM_CLOCK.setTimer(ns, () => resolve(SYSTEM_CLOCK.nowNs() - due)),
      );
    });
    for (const late of await Promise.all(deadlines))
      assert.ok(late >= 0, `fired ${-late} ns early`);
  });

  void it('cancels a timer', async () => {
    let fired = false;
    SYSTEM_CLOCK.setTimer(1, () => {
      fired = true;
    }).cancel();
    await new Promise<void>((resolve) => SYSTEM_CLOCK.setTimer(3_000_000, resolve));
    assert.equal(fired, false);
  });
});
