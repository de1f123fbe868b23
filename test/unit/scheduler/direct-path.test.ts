// The direct path (a config without dynamic_batching) through createScheduler, over the manual
// clock and a manual execution target: each request runs alone, with its tensors as sent, in
// arrival order on the next free instance; aborts, failures, drain and the stats as the batcher's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createScheduler } from '../../../src/scheduler/create-scheduler.js';
import {
  errorCode,
  floats,
  flush,
  input,
  ManualTarget,
  modelConfig,
  recorder,
  reporter,
  request,
} from './fixtures.js';
import { ManualClock } from './manual-clock.js';

const IO =
  'input { name: "IN" data_type: TYPE_FP32 dims: [ 2 ] } output { name: "OUT" data_type: TYPE_FP32 dims: [ 2 ] }';

function setup(o: { capacity?: number; maxBatchSize?: number } = {}) {
  const clock = new ManualClock();
  const target = new ManualTarget(o.capacity ?? 1);
  const rep = reporter();
  const config = modelConfig(
    `platform: "onnxruntime_onnx" max_batch_size: ${o.maxBatchSize ?? 8} ${IO}`,
  );
  const scheduler = createScheduler(config, target, rep, { clock });
  return { clock, target, rep, scheduler, ...recorder(scheduler) };
}

/** The first IN value each run received, in dispatch order: which request ran when. */
function firstValues(target: ManualTarget): number[] {
  return target.runs.map((r) => {
    const d = r.request.inputs[0]!;
    return new Float32Array(d.buffer, d.byteOffset, 1)[0]!;
  });
}

void describe('the direct path', () => {
  void it('runs a lone request at once, with its tensors as sent', async () => {
    const { target, send, rep } = setup();
    const o = send(request({ rows: 2, values: [1, 2, 3, 4] }));
    assert.equal(target.runs.length, 1);
    assert.deepEqual(target.runs[0]!.request.inputs[0]!.shape, [2, 2]);
    assert.equal(rep.pendingRequests, 0);
    target.complete(0);
    await flush();
    assert.deepEqual(floats(o.result!.outputs[0]!.data), [2, 4, 6, 8]);
    assert.deepEqual(o.result!.outputs[0]!.shape, [2, 2]);
    assert.equal(o.result!.queueNs, 0);
    assert.deepEqual([o.result!.inputNs, o.result!.inferNs, o.result!.outputNs], [10, 100, 20]);
    assert.equal(rep.stats.executionCount, 1);
    assert.equal(rep.stats.inferenceCount, 2);
  });

  void it('runs each queued request alone, in arrival order, on the next free instance', async () => {
    const { clock, target, send, rep } = setup({ capacity: 2 });
    const outcomes = [2, 1, 3, 1].map((rows, seed) => send(request({ rows, seed })));
    assert.deepEqual(target.batches, [2, 1]);
    assert.equal(rep.pendingRequests, 2);
    clock.advanceUs(100);
    target.complete(1); // the second instance frees first: the third request takes it
    await flush();
    assert.deepEqual(target.batches, [2, 1, 3]);
    target.complete(0);
    await flush();
    assert.deepEqual(target.batches, [2, 1, 3, 1]);
    assert.equal(rep.pendingRequests, 0);
    target.complete(2);
    target.complete(3);
    await flush();
    // Queue time on the injected clock: the last two waited the 100 µs the instances were busy.
    assert.deepEqual(
      outcomes.map((o) => o.result!.queueNs),
      [0, 0, 100_000, 100_000],
    );
    assert.equal(rep.stats.executionCount, 4);
    assert.equal(rep.stats.inferenceCount, 7);
  });

  void it('ignores the priority and timeout parameters: no levels, no deadlines', async () => {
    const { clock, target, send } = setup();
    send(request({ seed: 0 }));
    const later = send(request({ seed: 1 }));
    const urgent = send(request({ seed: 2, priority: 1, timeoutUs: 10 }));
    assert.equal(clock.pendingTimers, 0);
    clock.advanceUs(1_000_000);
    await flush();
    assert.equal(urgent.error, undefined);
    for (let run = 0; run < 3; run++) {
      target.complete(run);
      await flush();
    }
    assert.deepEqual(firstValues(target), [0, 100, 200]);
    assert.ok(later.result !== undefined && urgent.result !== undefined);
  });

  void it('withdraws a queued request whose client went away; it never reaches a worker', async () => {
    const { target, send, rep, scheduler } = setup();
    send(request({ seed: 0 }));
    const c = new AbortController();
    const gone = send(request({ seed: 1, signal: c.signal }));
    const stays = send(request({ seed: 2 }));
    assert.equal(rep.pendingRequests, 2);
    c.abort();
    assert.equal(rep.pendingRequests, 1); // at once, not when the running request ends
    assert.equal(scheduler.inflightCount(), 2);
    await flush();
    assert.equal(errorCode(gone), 'CANCELLED');
    target.complete(0);
    await flush();
    target.complete(1);
    await flush();
    assert.deepEqual(firstValues(target), [0, 200]);
    assert.ok(stays.result !== undefined);
  });

  void it('drops the result of a run whose client went away mid-run', async () => {
    const { target, send, rep } = setup();
    const c = new AbortController();
    const o = send(request({ signal: c.signal }));
    c.abort();
    await flush();
    assert.equal(o.error, undefined); // cooperative: the run finishes
    target.complete(0);
    await flush();
    assert.equal(errorCode(o), 'CANCELLED');
    assert.equal(rep.stats.executionCount, 1);
  });

  void it('answers a failed run with its error and goes on with the queue', async () => {
    const { target, send, rep } = setup();
    const failed = send(request({ seed: 0 }));
    const next = send(request({ seed: 1 }));
    target.fail(0, 'boom');
    await flush();
    assert.equal(errorCode(failed), 'INFER_FAILED');
    assert.equal(failed.error?.message, 'boom');
    assert.equal(rep.stats.executionCount, 0);
    target.complete(1);
    await flush();
    assert.deepEqual(floats(next.result!.outputs[0]!.data), [200, 202]);
  });

  void it('refuses new requests after stop, and resolves once the queue has drained', async () => {
    const { target, send, scheduler } = setup();
    const running = send(request({ seed: 0 }));
    const queued = send(request({ seed: 1 }));
    let stopped = false;
    void scheduler.stop().then(() => {
      stopped = true;
    });
    const late = send(request({ seed: 2 }));
    await flush();
    assert.equal(errorCode(late), 'SHUTTING_DOWN');
    assert.equal(late.error?.message, 'the server is shutting down');
    target.complete(0);
    await flush();
    assert.equal(stopped, false);
    target.complete(1);
    await flush();
    assert.ok(running.result !== undefined && queued.result !== undefined);
    assert.equal(stopped, true);
    assert.equal(scheduler.inflightCount(), 0);
  });

  void it('stopNow answers the queue with SHUTTING_DOWN at once and resolves when the run returns', async () => {
    const { target, send, scheduler, rep } = setup();
    const running = send(request({ seed: 0 }));
    const queued = [1, 2].map((seed) => send(request({ seed })));
    let stopped = false;
    void scheduler.stopNow().then(() => {
      stopped = true;
    });
    await flush();
    assert.deepEqual(queued.map(errorCode), ['SHUTTING_DOWN', 'SHUTTING_DOWN']);
    assert.equal(rep.pendingRequests, 0);
    assert.equal(target.runs.length, 1, 'nothing queued was dispatched');
    const late = send(request({ seed: 3 }));
    await flush();
    assert.equal(errorCode(late), 'SHUTTING_DOWN');
    assert.equal(stopped, false, 'the run under way is waited for');
    assert.equal(scheduler.inflightCount(), 1);
    target.complete(0);
    await flush();
    assert.ok(running.result !== undefined, 'the running request is answered with its result');
    assert.equal(stopped, true);
  });

  void it('stopNow after stop resolves both, and with nothing in flight resolves at once', async () => {
    const { target, send, scheduler } = setup();
    send(request({ seed: 0 }));
    send(request({ seed: 1 }));
    const settled: string[] = [];
    void scheduler.stop().then(() => settled.push('stop'));
    void scheduler.stopNow().then(() => settled.push('stopNow'));
    target.complete(0);
    await flush();
    assert.deepEqual(settled.sort(), ['stop', 'stopNow']);
    assert.equal(target.runs.length, 1, 'the queued request was answered, not run');
    await scheduler.stopNow();
    await scheduler.stop();
  });

  void it('passes a model without a batch dim its tensors unchanged', async () => {
    const { target, send } = setup({ maxBatchSize: 0 });
    const x = input({
      name: 'IN',
      datatype: 'FP32',
      shape: [2],
      bytes: new Uint8Array(Float32Array.from([5, 6]).buffer),
    });
    const o = send(request({ inputs: [x] }));
    assert.deepEqual(target.runs[0]!.request.inputs[0]!.shape, [2]);
    target.complete(0);
    await flush();
    assert.deepEqual(o.result!.outputs[0]!.shape, [2]);
    assert.deepEqual(floats(o.result!.outputs[0]!.data), [10, 12]);
    assert.equal(x.writes, 1);
  });
});
