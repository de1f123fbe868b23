// The scheduler factory reads the frozen config: dynamic_batching picks the batcher with its
// knobs resolved (from real config.pbtxt text through the config pipeline), otherwise the direct
// strategy. Plus the real clock's promise: a timer never fires before its deadline.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import type { ModelConfig } from '../../../src/config/model-config.js';
import { normalizeModelConfig } from '../../../src/config/normalize.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { validateModelConfig } from '../../../src/config/validate.js';
import { batcherSettings, createScheduler } from '../../../src/scheduler/create-scheduler.js';
import { DirectScheduler } from '../../../src/scheduler/direct-scheduler.js';
import { DynamicBatcher } from '../../../src/scheduler/dynamic-batcher.js';
import { levelOf, policyOf } from '../../../src/scheduler/queue-policy.js';
import { SYSTEM_CLOCK } from '../../../src/scheduler/scheduler-clock.js';
import { ManualTarget, reporter } from './fixtures.js';

const IO =
  'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }';

function config(text: string): ModelConfig {
  const raw = autocompleteCoreFields(parseModelConfig(text, 'config.pbtxt'), {
    modelName: 'm',
    versionHasOnnxModel: true,
  });
  const { config: c } = normalizeModelConfig(raw, { availableGpus: [] });
  validateModelConfig(c, { modelName: 'm', availableGpus: [] });
  return c;
}

void describe('createScheduler', () => {
  void it('uses the direct strategy without dynamic_batching', () => {
    const c = config(`platform: "onnxruntime_onnx" max_batch_size: 8 ${IO}`);
    assert.equal(batcherSettings(c), undefined);
    assert.ok(createScheduler(c, new ManualTarget(1), reporter()) instanceof DirectScheduler);
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
    assert.ok(createScheduler(c, new ManualTarget(1), reporter()) instanceof DynamicBatcher);
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
