// The dynamic batcher's input blocks are reused across runs only when the target says its runs stop
// reading inputs once answered, and never when an output is a view of the block (it is sent to the
// client zero-copy) or the run failed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunRequest, RunResponse } from '../../../src/execution/messages.js';
import { DynamicBatcher, type BatcherSettings } from '../../../src/scheduler/dynamic-batcher.js';
import type { ExecutionTarget } from '../../../src/scheduler/execution-target.js';
import { priorityPlan } from '../../../src/scheduler/queue-policy.js';
import { floats, request } from './fixtures.js';

const SETTINGS: BatcherSettings = {
  maxBatchSize: 4096,
  preferredBatchSizes: [],
  maxQueueDelayUs: 0,
  preserveOrdering: false,
  priorities: priorityPlan(undefined),
};

type Answer = 'copy' | 'alias' | 'fail';

/** Answers each run at once: OUT = IN copied to a new buffer, OUT a view of IN, or a failure. */
class EchoTarget implements ExecutionTarget {
  readonly capacity = 1;
  readonly buffers: SharedArrayBuffer[] = [];
  answer: Answer = 'copy';

  constructor(readonly inputsFreeAfterRun: boolean) {}

  run(req: RunRequest): Promise<RunResponse> {
    const input = req.inputs[0];
    if (input === undefined) throw new Error('run without inputs');
    this.buffers.push(input.buffer as SharedArrayBuffer);
    if (this.answer === 'fail') {
      return Promise.resolve({ ok: false, error: { code: 'INFER_FAILED', message: 'no' } });
    }
    const buffer =
      this.answer === 'alias'
        ? input.buffer
        : input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength);
    const byteOffset = this.answer === 'alias' ? input.byteOffset : 0;
    return Promise.resolve({
      ok: true,
      outputs: [{ ...input, name: 'OUT', buffer, byteOffset }],
      timing: { inputNs: 1, inferNs: 1, outputNs: 1 },
    });
  }
}

/** One run of a 1024-row request (8 KiB of FP32 [1024, 2]); its OUT values. */
async function runOnce(batcher: DynamicBatcher, seed: number): Promise<number[]> {
  const outcome = await batcher.execute([request({ rows: 1024, seed })]);
  if (!outcome.ok) return [];
  return floats(outcome.outputs[0]?.[0]?.data ?? new Uint8Array(0));
}

void describe('DynamicBatcher input block reuse', () => {
  void it('reuses the block of an answered run, and each run still sees its own rows', async () => {
    const target = new EchoTarget(true);
    const batcher = new DynamicBatcher(target, SETTINGS);
    const first = await runOnce(batcher, 1);
    const second = await runOnce(batcher, 2);
    assert.equal(target.buffers[1], target.buffers[0]);
    assert.equal(first[0], 100);
    assert.equal(second[0], 200);
    assert.equal(second[2047], 200 + 2047);
  });

  void it('does not reuse a block an output views, or a failed run block', async () => {
    const target = new EchoTarget(true);
    const batcher = new DynamicBatcher(target, SETTINGS);
    target.answer = 'alias';
    const aliased = await runOnce(batcher, 1);
    target.answer = 'fail';
    await runOnce(batcher, 2);
    target.answer = 'copy';
    await runOnce(batcher, 3);
    const [a, b, c] = target.buffers;
    assert.notEqual(b, a);
    assert.notEqual(c, a);
    assert.notEqual(c, b);
    assert.equal(aliased[0], 100, 'the aliased output still holds its own run values');
  });

  void it('never reuses blocks for a target that does not free inputs after a run', async () => {
    const target = new EchoTarget(false);
    const batcher = new DynamicBatcher(target, SETTINGS);
    await runOnce(batcher, 1);
    await runOnce(batcher, 2);
    assert.notEqual(target.buffers[1], target.buffers[0]);
  });
});
