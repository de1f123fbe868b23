// The dynamic batcher end to end over an injected clock and a manual execution target: dispatch
// rules, no cross-talk between batched requests, queue policy, cancellation, ordering and the
// exact pending gauge. No timers run on wall-clock time; `flush` only lets promises settle.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, type InferenceServerError } from '../../../src/errors.js';
import type { ModelReporter } from '../../../src/metrics/model-reporter.js';
import { batchingScheduler } from '../../../src/scheduler/create-scheduler.js';
import type { BatcherSettings } from '../../../src/scheduler/dynamic-batcher.js';
import { priorityPlan } from '../../../src/scheduler/queue-policy.js';
import type { DynamicBatchingConfig } from '../../../src/config/model-config.js';
import {
  dynamicBatching,
  errorCode,
  fp32,
  flush,
  floats,
  ManualTarget,
  recorder,
  reporter,
  request,
} from './fixtures.js';
import { ManualClock } from './manual-clock.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import { typedView } from '../../../src/memory/views.js';

function setup(
  o: {
    capacity?: number;
    settings?: Partial<BatcherSettings>;
    db?: Partial<DynamicBatchingConfig>;
  } = {},
) {
  const clock = new ManualClock();
  const target = new ManualTarget(o.capacity ?? 1);
  const rep = reporter();
  const settings: BatcherSettings = {
    maxBatchSize: 8,
    preferredBatchSizes: [8],
    maxQueueDelayUs: 0,
    preserveOrdering: false,
    priorities: priorityPlan(dynamicBatching(o.db)),
    ...o.settings,
  };
  const batcher = batchingScheduler(target, rep, settings, { clock });
  return { clock, target, rep, batcher, ...recorder(batcher) };
}

const pending = (r: ModelReporter) => r.pendingRequests;

void describe('DynamicBatcher', () => {
  void it('dispatches a lone request at once when the queue is empty and the delay is 0', async () => {
    const { target, send, rep } = setup();
    const o = send(request({ rows: 1, values: [3, 4] }));
    assert.equal(target.runs.length, 1);
    assert.equal(pending(rep), 0);
    target.complete(0);
    await flush();
    assert.deepEqual(floats(o.result!.outputs[0]!.data), [6, 8]);
    assert.deepEqual(o.result!.outputs[0]!.shape, [1, 2]);
  });

  void it('batches what queued behind a busy instance, and each request gets its own rows', async () => {
    const { target, send, rep } = setup();
    const first = send(request({ seed: 0 }));
    const rest = [1, 2, 3, 4].map((seed) => send(request({ rows: seed === 3 ? 2 : 1, seed })));
    assert.equal(target.runs.length, 1);
    assert.equal(pending(rep), 4);
    target.complete(0);
    await flush();
    assert.deepEqual(target.batches, [1, 5]);
    assert.equal(pending(rep), 0);
    target.complete(1);
    await flush();
    assert.ok(first.result !== undefined);
    rest.forEach((o, k) => {
      const seed = k + 1;
      const rows = seed === 3 ? 2 : 1;
      const expected = Array.from({ length: rows * 2 }, (_, i) => (seed * 100 + i) * 2);
      assert.deepEqual(floats(o.result!.outputs[0]!.data), expected, `request ${seed}`);
      assert.deepEqual(o.result!.outputs[0]!.shape, [rows, 2]);
    });
    // One batch output buffer, viewed by every member.
    const buffers = new Set(rest.map((o) => o.result!.outputs[0]!.data.buffer));
    assert.equal(buffers.size, 1);
    assert.equal(rep.stats.executionCount, 2);
    assert.equal(rep.stats.inferenceCount, 6);
  });

  void it("copies each request's input once", async () => {
    const { target, send } = setup();
    send(request());
    const inputs = [fp32('IN', 1, [1, 2]), fp32('IN', 1, [3, 4])];
    inputs.forEach((i) => send(request({ inputs: [i] })));
    target.complete(0);
    await flush();
    assert.deepEqual(
      inputs.map((i) => i.writes),
      [1, 1],
    );
  });

  void it('a member whose data fails to copy fails alone: the others run and get their rows', async () => {
    const { target, send, rep } = setup();
    send(request({ seed: 0 }));
    const good1 = send(request({ seed: 1 }));
    const bad = send(
      request({
        inputs: [
          {
            ...fp32('IN', 1, [0, 0]),
            write: () => {
              throw fail('BAD_TENSOR_DATA', 'input IN: element 1 is 300');
            },
          },
        ],
      }),
    );
    const good2 = send(request({ seed: 2 }));
    target.complete(0);
    await flush();
    assert.deepEqual(target.batches, [1, 2]); // the bad member's row never ran
    target.complete(1);
    await flush();
    assert.deepEqual(floats(good1.result!.outputs[0]!.data), [200, 202]);
    assert.deepEqual(floats(good2.result!.outputs[0]!.data), [400, 402]);
    assert.equal(errorCode(bad), 'BAD_TENSOR_DATA');
    assert.equal(bad.error?.message, 'input IN: element 1 is 300');
    assert.equal(rep.stats.inferenceCount, 3);
  });

  void it('a batch whose every member fails to copy answers each with its own error', async () => {
    const { target, send } = setup();
    send(request({ seed: 0 }));
    const failing = (message: string) =>
      request({
        inputs: [
          {
            ...fp32('IN', 1, [0, 0]),
            write: () => {
              throw fail('BAD_TENSOR_DATA', message);
            },
          },
        ],
      });
    const a = send(failing('a is bad'));
    const b = send(failing('b is bad'));
    target.complete(0);
    await flush();
    assert.deepEqual(target.batches, [1]);
    assert.deepEqual([a.error?.message, b.error?.message], ['a is bad', 'b is bad']);
  });

  void it('keeps both instances busy: a second request goes to the idle instance at once', () => {
    const { target, send } = setup({ capacity: 2 });
    send(request({ seed: 1 }));
    send(request({ seed: 2 }));
    assert.deepEqual(target.batches, [1, 1]);
    send(request({ seed: 3 }));
    assert.equal(target.runs.length, 2); // both busy: it queues
  });

  void it('waits for max_queue_delay, then sends; a preferred size goes at once', async () => {
    const { clock, target, send } = setup({
      capacity: 2,
      settings: { maxQueueDelayUs: 1000, preferredBatchSizes: [4, 8] },
    });
    send(request({ seed: 1 }));
    send(request({ seed: 2 }));
    clock.advanceUs(999);
    assert.equal(target.runs.length, 0);
    clock.advanceUs(1);
    // Two idle instances: the two rows are shared, one each.
    assert.deepEqual(target.batches, [1, 1]);
    target.complete(0);
    target.complete(1);
    await flush();
    send(request({ seed: 3 })); // one row, no preferred size: it waits for the delay
    assert.equal(target.batches.length, 2);
    for (let s = 4; s <= 10; s++) send(request({ seed: s }));
    // Eight rows shared by two idle instances: 4 + 4, each a preferred size, sent before the delay.
    assert.deepEqual(target.batches, [1, 1, 4, 4]);
  });

  void it('shares the queued rows between two idle instances when the delay runs out', async () => {
    const { target, send, clock } = setup({ capacity: 2, settings: { maxQueueDelayUs: 500 } });
    for (let i = 0; i < 6; i++) send(request({ seed: i }));
    assert.equal(target.runs.length, 0);
    clock.advanceUs(500);
    assert.deepEqual(target.batches, [3, 3]);
    target.complete(0);
    target.complete(1);
    await flush();
  });

  void it('forms separate batches for requests whose non-batch dims differ', async () => {
    const { target, send } = setup();
    send(request());
    const wide = (seed: number) => request({ inputs: [fp32('IN', 1, [seed, seed, seed])], seed });
    const a = send(request({ seed: 5 }));
    const b = send(wide(7));
    const c = send(request({ seed: 6 }));
    target.complete(0);
    await flush();
    assert.deepEqual(target.batches, [1, 2]);
    target.complete(1);
    await flush();
    assert.deepEqual(target.batches, [1, 2, 1]);
    target.complete(2);
    await flush();
    assert.deepEqual(floats(a.result!.outputs[0]!.data), [1000, 1002]);
    assert.deepEqual(floats(c.result!.outputs[0]!.data), [1200, 1202]);
    assert.deepEqual(floats(b.result!.outputs[0]!.data), [14, 14, 14]);
  });

  void it('answers a queue timeout with 503 at its deadline, while the batch ahead still runs', async () => {
    const { clock, target, send, rep } = setup({
      db: {
        default_queue_policy: {
          timeout_action: 'REJECT',
          default_timeout_microseconds: 100_000,
          allow_timeout_override: false,
          max_queue_size: 0,
        },
      },
    });
    send(request()); // occupies the only instance, and never finishes in this test
    const late = send(request());
    clock.advanceUs(99_999);
    await flush();
    assert.ok(late.error === undefined);
    assert.equal(pending(rep), 1);
    clock.advanceUs(1);
    await flush();
    const err = late.error as InferenceServerError | undefined;
    assert.equal(err?.code, 'QUEUE_TIMEOUT');
    assert.equal(err?.message, 'Request timeout expired');
    assert.equal(err?.status, 503);
    assert.equal(pending(rep), 0);
    assert.equal(target.running, 1);
    target.complete(0);
    await flush();
    assert.equal(target.runs.length, 1); // the timed-out request never ran
  });

  void it('lets a request lower its timeout when allow_timeout_override is set', async () => {
    const { clock, send } = setup({
      db: {
        default_queue_policy: {
          timeout_action: 'REJECT',
          default_timeout_microseconds: 100_000,
          allow_timeout_override: true,
          max_queue_size: 0,
        },
      },
    });
    send(request());
    const quick = send(request({ timeoutUs: 10 }));
    const raised = send(request({ timeoutUs: 500_000 }));
    clock.advanceUs(10);
    await flush();
    assert.equal(errorCode(quick), 'QUEUE_TIMEOUT');
    assert.equal(raised.error, undefined);
    clock.advanceUs(100_000);
    await flush();
    assert.equal(errorCode(raised), 'QUEUE_TIMEOUT'); // cannot raise past the default
  });

  void it('serves DELAY-ed requests after the on-time ones', async () => {
    const { clock, target, send } = setup({
      settings: { maxBatchSize: 1, preferredBatchSizes: [1] },
      db: {
        default_queue_policy: {
          timeout_action: 'DELAY',
          default_timeout_microseconds: 1000,
          allow_timeout_override: true,
          max_queue_size: 0,
        },
      },
    });
    send(request({ seed: 0 }));
    const old = send(request({ seed: 1, timeoutUs: 5 }));
    const fresh = send(request({ seed: 2 }));
    clock.advanceUs(5);
    target.complete(0);
    await flush();
    target.complete(1);
    await flush();
    assert.ok(fresh.result !== undefined && old.result === undefined);
    target.complete(2);
    await flush();
    assert.deepEqual(floats(old.result!.outputs[0]!.data), [200, 202]);
  });

  void it('rejects past max_queue_size at once, and the pending gauge never counts them', async () => {
    const { target, send, rep } = setup({
      db: {
        default_queue_policy: {
          timeout_action: 'REJECT',
          default_timeout_microseconds: 0,
          allow_timeout_override: false,
          max_queue_size: 8,
        },
      },
    });
    send(request({ rows: 8 })); // executing: not in the queue
    const singles = Array.from({ length: 10 }, (_, i) => send(request({ seed: i })));
    await flush();
    assert.deepEqual(singles.map(errorCode), [
      ...Array<undefined>(8).fill(undefined),
      'QUEUE_FULL',
      'QUEUE_FULL',
    ]);
    assert.match(singles[8]!.error!.message, /^Exceeds maximum queue size/);
    assert.equal(pending(rep), 8);
    target.complete(0);
    await flush();
    assert.equal(pending(rep), 0);
    target.complete(1);
    await flush();
    assert.equal(singles.filter((o) => o.result !== undefined).length, 8);
  });

  void it('withdraws a request whose client went away; it never reaches a worker', async () => {
    const { target, send, rep } = setup();
    send(request());
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const queued = controllers.map((c, i) => send(request({ seed: i + 1, signal: c.signal })));
    assert.equal(pending(rep), 5);
    for (const i of [0, 2, 4]) controllers[i]!.abort();
    assert.equal(pending(rep), 2); // at once, not when the running batch ends
    await flush();
    assert.deepEqual(
      [0, 2, 4].map((i) => errorCode(queued[i]!)),
      ['CANCELLED', 'CANCELLED', 'CANCELLED'],
    );
    target.complete(0);
    await flush();
    assert.deepEqual(target.batches, [1, 2]);
    const sent = floats(
      new Uint8Array(
        target.runs[1]!.request.inputs[0]!.buffer,
        target.runs[1]!.request.inputs[0]!.byteOffset,
        16,
      ),
    );
    assert.deepEqual(sent, [200, 201, 400, 401]); // seeds 2 and 4 only
    target.complete(1);
    await flush();
    assert.ok(queued[1]!.result !== undefined && queued[3]!.result !== undefined);
  });

  void it('drops the result of a run whose client went away mid-run', async () => {
    const { target, send, rep } = setup();
    const c = new AbortController();
    const o = send(request({ signal: c.signal }));
    c.abort();
    await flush();
    assert.equal(o.error, undefined); // still running: cooperative, the run finishes
    target.complete(0);
    await flush();
    assert.equal(errorCode(o), 'CANCELLED');
    assert.equal(rep.stats.executionCount, 1);
  });

  void it('serves higher priority levels first', async () => {
    const { target, send } = setup({
      settings: { maxBatchSize: 1, preferredBatchSizes: [1] },
      db: { priority_levels: 2, default_priority_level: 2 },
    });
    send(request({ seed: 0 }));
    send(request({ seed: 1 })); // default level 2
    send(request({ seed: 2, priority: 1 }));
    target.complete(0);
    await flush();
    target.complete(1);
    await flush();
    target.complete(2);
    await flush();
    const firstValue = (i: number) =>
      new Float32Array(
        target.runs[i]!.request.inputs[0]!.buffer,
        target.runs[i]!.request.inputs[0]!.byteOffset,
        1,
      )[0];
    assert.deepEqual([0, 1, 2].map(firstValue), [0, 200, 100]);
  });

  void it('releases results in arrival order with preserve_ordering', async () => {
    const { target, send, order } = setup({
      capacity: 2,
      settings: { maxBatchSize: 1, preferredBatchSizes: [1], preserveOrdering: true },
    });
    send(request({ seed: 0 }));
    send(request({ seed: 1 }));
    send(request({ seed: 2 }));
    target.complete(1); // the second request's run finishes first
    await flush();
    assert.deepEqual(order, []);
    target.complete(0);
    await flush();
    assert.deepEqual(order, [0, 1]);
    target.complete(2);
    await flush();
    assert.deepEqual(order, [0, 1, 2]);
  });

  void it('fails every member of a batch whose run failed', async () => {
    const { target, send } = setup();
    send(request());
    const a = send(request());
    const b = send(request());
    target.complete(0);
    await flush();
    target.fail(1, 'boom');
    await flush();
    assert.deepEqual([a, b].map(errorCode), ['INFER_FAILED', 'INFER_FAILED']);
    assert.equal(a.error?.message, 'boom');
  });

  void it('refuses new requests after stop, and drains the queue without waiting for the delay', async () => {
    const { target, send, batcher } = setup({ settings: { maxQueueDelayUs: 1e9 } });
    const queued = send(request());
    assert.equal(target.runs.length, 0);
    let stopped = false;
    void batcher.stop().then(() => {
      stopped = true;
    });
    assert.equal(target.runs.length, 1);
    const late = send(request());
    await flush();
    assert.equal(errorCode(late), 'SHUTTING_DOWN');
    assert.equal(stopped, false);
    target.complete(0);
    await flush();
    assert.ok(queued.result !== undefined);
    assert.equal(stopped, true);
    assert.equal(batcher.inflightCount(), 0);
  });

  void it('stopNow answers requests waiting for the queue delay instead of dispatching them', async () => {
    const { target, send, batcher, rep } = setup({ settings: { maxQueueDelayUs: 1e9 } });
    const waiting = [0, 1, 2].map((seed) => send(request({ seed })));
    assert.equal(target.runs.length, 0);
    await batcher.stopNow();
    await flush();
    assert.deepEqual(waiting.map(errorCode), ['SHUTTING_DOWN', 'SHUTTING_DOWN', 'SHUTTING_DOWN']);
    assert.equal(target.runs.length, 0);
    assert.equal(rep.pendingRequests, 0);
    assert.equal(batcher.inflightCount(), 0);
  });

  void it('keeps the pending gauge exact through dispatch, timeout, cancel and rejection', async () => {
    const { clock, target, send, rep, batcher } = setup({
      db: {
        default_queue_policy: {
          timeout_action: 'REJECT',
          default_timeout_microseconds: 1000,
          allow_timeout_override: true,
          max_queue_size: 3,
        },
      },
    });
    const seen: number[] = [];
    const look = () => seen.push(pending(rep));
    send(request());
    look(); // dispatched at once: 0
    const c = new AbortController();
    send(request({ signal: c.signal }));
    send(request({ timeoutUs: 10 }));
    send(request());
    look(); // 3
    send(request());
    look(); // still 3: the fourth was rejected
    c.abort();
    look(); // 2
    clock.advanceUs(10);
    look(); // 1
    target.complete(0);
    await flush();
    look(); // 0: the last one is running
    assert.deepEqual(seen, [0, 3, 3, 2, 1, 0]);
    assert.equal(batcher.inflightCount(), 1);
    target.complete(1);
    await flush();
    assert.equal(batcher.inflightCount(), 0);
  });
});

void describe('DynamicBatcher with a worker that answers per member', () => {
  /** A block with one FP32 output of `values`, shaped [values.length / 2, 2]. */
  const outputBlock = (values: readonly number[]) => {
    const block = TensorBlock.allocate([
      { name: 'OUT', datatype: 'FP32', shape: [values.length / 2, 2] },
    ]);
    (typedView(block.descriptor(0)) as Float32Array).set(values);
    return block.descriptors;
  };

  void it("tells the worker each member's rows and answers each with its own result", async () => {
    const { target, send } = setup();
    const first = send(request({ seed: 0 }));
    const rest = [1, 2, 3].map((seed) => send(request({ rows: seed === 3 ? 2 : 1, seed })));
    target.complete(0);
    await flush();
    const run = target.runs[1];
    assert.ok(run !== undefined);
    assert.deepEqual(run.request.members, [1, 1, 2]);
    run.resolve({
      ok: true,
      outputs: [],
      timing: { inputNs: 1, inferNs: 2, outputNs: 3 },
      members: [
        { ok: true, outputs: outputBlock([1, 2]) },
        { ok: false, error: { code: 'MODEL_EXECUTE_FAILED', message: 'member 1 refused' } },
        { ok: true, outputs: outputBlock([5, 6, 7, 8]) },
      ],
    });
    await flush();
    assert.ok(first.result !== undefined);
    assert.deepEqual(floats(rest[0]!.result!.outputs[0]!.data), [1, 2]);
    assert.equal(errorCode(rest[1]!), 'MODEL_EXECUTE_FAILED');
    assert.equal(rest[1]!.error?.message, 'member 1 refused');
    assert.deepEqual(floats(rest[2]!.result!.outputs[0]!.data), [5, 6, 7, 8]);
    assert.deepEqual(rest[2]!.result!.outputs[0]!.shape, [2, 2]);
  });

  void it('answers every member with its own error when all of them failed', async () => {
    const { target, send } = setup();
    send(request({ seed: 0 }));
    const rest = [1, 2].map((seed) => send(request({ seed })));
    target.complete(0);
    await flush();
    target.runs[1]!.resolve({
      ok: true,
      outputs: [],
      timing: { inputNs: 1, inferNs: 2, outputNs: 3 },
      members: [
        { ok: false, error: { code: 'MODEL_EXECUTE_FAILED', message: 'first' } },
        { ok: false, error: { code: 'BAD_SHAPE', message: 'second' } },
      ],
    });
    await flush();
    assert.deepEqual(
      rest.map((o) => [errorCode(o), o.error?.message]),
      [
        ['MODEL_EXECUTE_FAILED', 'first'],
        ['BAD_SHAPE', 'second'],
      ],
    );
  });
});
