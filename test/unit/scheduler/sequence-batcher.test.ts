// The sequence batcher inside the scheduler shell, with a manual clock and an execution target that
// computes an accumulator from the batch's shared memory (what the `sequence_accumulator` fixture
// model computes): OUTPUT = (START ? 0 : ACC) + INPUT on READY rows, ACC_OUT the same, so a wrong
// slot, a lost state or a misplaced control value shows in the answers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail } from '../../../src/errors.js';
import type { RunRequest, RunResponse } from '../../../src/execution/messages.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import { typedView } from '../../../src/memory/views.js';
import type { ExecutionTarget } from '../../../src/scheduler/execution-target.js';
import { createScheduler } from '../../../src/scheduler/create-scheduler.js';
import { brandValidated, type ValidatedRequest } from '../../../src/scheduler/validated-request.js';
import type { TensorDescriptor } from '../../../src/tensor/tensor.js';
import { ManualClock } from './manual-clock.js';
import { errorCode, flush, input, modelConfig, recorder, reporter } from './fixtures.js';

const CONTROLS = `
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] },
    { name: "END" control [ { kind: CONTROL_SEQUENCE_END fp32_false_true: [ 0, 1 ] } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
  ]
  state [ { input_name: "ACC" output_name: "ACC_OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]`;

function config(strategy: string, maxBatchSize = 4, idleUs = 1000): string {
  return `name: "m"
max_batch_size: ${maxBatchSize}
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
sequence_batching { max_sequence_idle_microseconds: ${idleUs} ${CONTROLS} ${strategy} }
instance_group [ { kind: KIND_CPU count: 1 } ]`;
}

/** What one row of a run carried in. */
interface RowSeen {
  readonly input: number;
  readonly start: number;
  readonly ready: number;
  readonly end: number;
  readonly corrid: bigint;
  readonly acc: number;
}

const named = (r: RunRequest, name: string): TensorDescriptor => {
  const d = r.inputs.find((i) => i.name === name);
  if (d === undefined) throw new Error(`run without input ${name}`);
  return d;
};

class AccumulatorTarget implements ExecutionTarget {
  readonly runs: { request: RunRequest; resolve: (r: RunResponse) => void }[] = [];
  constructor(readonly capacity: number) {}

  run(request: RunRequest): Promise<RunResponse> {
    return new Promise((resolve) => this.runs.push({ request, resolve }));
  }

  /** The rows run `i` carried, read from its shared memory. */
  rows(i: number): RowSeen[] {
    const r = (this.runs[i] as { request: RunRequest }).request;
    const input = typedView(named(r, 'INPUT')) as Int32Array;
    const start = typedView(named(r, 'START')) as Int32Array;
    const ready = typedView(named(r, 'READY')) as Int32Array;
    const end = typedView(named(r, 'END')) as Float32Array;
    const corrid = typedView(named(r, 'CORRID')) as BigUint64Array;
    const acc = typedView(named(r, 'ACC')) as Int32Array;
    return [...input].map((v, k) => ({
      input: v,
      start: start[k] as number,
      ready: ready[k] as number,
      end: end[k] as number,
      corrid: corrid[k] as bigint,
      acc: acc[k] as number,
    }));
  }

  complete(i: number): void {
    const rows = this.rows(i);
    const block = TensorBlock.allocate([
      { name: 'OUTPUT', datatype: 'INT32', shape: [rows.length, 1] },
      { name: 'ACC_OUT', datatype: 'INT32', shape: [rows.length, 1] },
    ]);
    const out = typedView(block.descriptor(0)) as Int32Array;
    const acc = typedView(block.descriptor(1)) as Int32Array;
    rows.forEach((row, k) => {
      const v = row.ready === 1 ? (row.start === 1 ? 0 : row.acc) + row.input : row.acc;
      out[k] = v;
      acc[k] = v;
    });
    (this.runs[i] as { resolve: (r: RunResponse) => void }).resolve({
      ok: true,
      outputs: block.descriptors,
      timing: { inputNs: 1, inferNs: 2, outputNs: 3 },
    });
  }
}

function step(
  id: number | string,
  value: number,
  flags: { start?: boolean; end?: boolean; signal?: AbortSignal } = {},
): ValidatedRequest {
  return brandValidated({
    model: 'm',
    version: 1,
    batchSize: 1,
    inputs: [
      input({
        name: 'INPUT',
        datatype: 'INT32',
        shape: [1, 1],
        bytes: new Uint8Array(Int32Array.of(value).buffer),
      }),
    ],
    outputs: [{ name: 'OUTPUT', binary: false }],
    priority: 0,
    timeoutUs: 0,
    sequence: { id, start: flags.start === true, end: flags.end === true },
    signal: flags.signal ?? new AbortController().signal,
    arrivalNs: 0,
  });
}

/** A step whose input fails to copy into the batch, as a shared-memory region shrunk since does. */
function failingStep(id: number, flags: { start?: boolean; end?: boolean } = {}): ValidatedRequest {
  const ok = step(id, 0, flags);
  const [spec] = ok.inputs;
  if (spec === undefined) throw new Error('step without an input');
  return brandValidated({
    ...ok,
    inputs: [
      {
        ...spec,
        write(): void {
          throw fail('SHM_TRUNCATED', 'shared memory region shrank');
        },
      },
    ],
  });
}

function setup(text: string, instances = 1, maxLive?: number) {
  const clock = new ManualClock();
  const target = new AccumulatorTarget(instances);
  const scheduler = createScheduler(modelConfig(text), target, reporter(), {
    clock,
    ...(maxLive !== undefined && { maxLiveSequences: maxLive }),
  });
  return { clock, target, scheduler, ...recorder(scheduler) };
}

const value = (o: {
  result?: { outputs: readonly { data: Uint8Array }[] };
}): number | undefined => {
  const d = o.result?.outputs[0]?.data;
  return d === undefined ? undefined : new Int32Array(d.slice().buffer)[0];
};

void describe('sequence batcher, direct', () => {
  void it('gives each sequence a slot row, fills the controls and carries the state', async () => {
    const t = setup(config('direct { }'));
    const a1 = t.send(step(7, 1, { start: true }));
    await flush();
    // One instance: the first START runs alone; the next two wait for it.
    const b1 = t.send(step(9, 10, { start: true }));
    const a2 = t.send(step(7, 2));
    assert.deepEqual(t.target.rows(0), [
      { input: 1, start: 1, ready: 1, end: 0, corrid: 7n, acc: 0 },
    ]);
    t.target.complete(0);
    await flush();
    assert.equal(value(a1), 1);
    // Sequence 7 holds slot 0, sequence 9 slot 1: both in one batch, at their rows.
    assert.deepEqual(t.target.rows(1), [
      { input: 2, start: 0, ready: 1, end: 0, corrid: 7n, acc: 1 },
      { input: 10, start: 1, ready: 1, end: 0, corrid: 9n, acc: 0 },
    ]);
    t.target.complete(1);
    await flush();
    assert.equal(value(a2), 3);
    assert.equal(value(b1), 10);
    // Only sequence 9 has a request: row 1, with row 0 empty (READY 0, state untouched).
    const b2 = t.send(step(9, 5, { end: true }));
    await flush();
    assert.deepEqual(t.target.rows(2), [
      { input: 0, start: 0, ready: 0, end: 0, corrid: 0n, acc: 0 },
      { input: 5, start: 0, ready: 1, end: 1, corrid: 9n, acc: 10 },
    ]);
    t.target.complete(2);
    await flush();
    assert.equal(value(b2), 15);
    // Sequence 7's state survived the run it sat out.
    const a3 = t.send(step(7, 4, { end: true }));
    await flush();
    assert.equal(t.target.rows(3)[0]?.acc, 3);
    t.target.complete(3);
    await flush();
    assert.equal(value(a3), 7);
  });

  void it('fails only the member whose data does not copy, and leaves its state as it was', async () => {
    const t = setup(config('direct { }'));
    const a1 = t.send(step(7, 1, { start: true }));
    await flush();
    // The instance is busy: the next two wait and share a run.
    const a2 = t.send(failingStep(7));
    const b1 = t.send(step(9, 10, { start: true }));
    t.target.complete(0);
    await flush();
    assert.equal(value(a1), 1);
    // Sequence 7's row is zeros (its data failed to copy); sequence 9's runs as usual.
    assert.deepEqual(
      t.target.rows(1).map((r) => [r.input, Number(r.corrid), r.acc]),
      [
        [0, 7, 1],
        [10, 9, 0],
      ],
    );
    t.target.complete(1);
    await flush();
    assert.equal(errorCode(a2), 'SHM_TRUNCATED');
    assert.match(a2.error?.message ?? '', /shared memory region shrank/);
    assert.equal(value(b1), 10);
    // The failed step's row was not scattered back: sequence 7 still holds 1.
    const a3 = t.send(step(7, 4, { end: true }));
    await flush();
    assert.equal(t.target.rows(2)[0]?.acc, 1);
    t.target.complete(2);
    await flush();
    assert.equal(value(a3), 5);
  });

  void it('answers a run whose every member failed to copy without running it', async () => {
    const t = setup(config('direct { }'));
    const a = t.send(failingStep(3, { start: true }));
    await flush();
    assert.equal(t.target.runs.length, 0);
    assert.equal(errorCode(a), 'SHM_TRUNCATED');
  });

  void it("runs a sequence's requests one at a time, in order", async () => {
    const t = setup(config('direct { }'));
    const outs = [
      t.send(step(1, 1, { start: true })),
      t.send(step(1, 2)),
      t.send(step(1, 3, { end: true })),
    ];
    for (let i = 0; i < 3; i++) {
      await flush();
      assert.equal(t.target.runs.length, i + 1, 'the next step waits for the one before');
      t.target.complete(i);
    }
    await flush();
    assert.deepEqual(outs.map(value), [1, 3, 6]);
  });

  void it("keeps a sequence's order when its requests come with different tenants", async () => {
    const t = setup(config('direct { }'));
    const as = (r: ValidatedRequest, name: string): ValidatedRequest => ({
      ...r,
      tenant: { name, weight: 1 },
    });
    // Fair dequeuing would put b's first request next to a's first: the queue stays in arrival order.
    const outs = [
      t.send(as(step(1, 1, { start: true }), 'a')),
      t.send(as(step(1, 2), 'a')),
      t.send(as(step(1, 3), 'a')),
      t.send(as(step(1, 4, { end: true }), 'b')),
    ];
    for (let i = 0; i < 4; i++) {
      await flush();
      t.target.complete(i);
    }
    await flush();
    assert.deepEqual(outs.map(value), [1, 3, 6, 10]);
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => t.target.rows(i)[0]?.input),
      [1, 2, 3, 4],
    );
  });

  void it('refuses a request of a sequence that was never started, in Triton words', async () => {
    const t = setup(config('direct { }'));
    const o = t.send(step(42, 1));
    await flush();
    assert.equal(errorCode(o), 'SEQUENCE_NOT_STARTED');
    assert.match(
      o.error?.message ?? '',
      /inference request for sequence 42 to model 'm' must specify the START flag on the first request of the sequence/,
    );
    assert.equal(t.target.runs.length, 0);
  });

  void it('backlogs a START while every slot is held and gives it the first slot released', async () => {
    const t = setup(config('direct { }', 2));
    t.send(step(1, 1, { start: true }));
    t.send(step(2, 1, { start: true }));
    await flush();
    t.target.complete(0);
    await flush();
    t.target.complete(1); // sequence 2's START
    await flush();
    const c = t.send(step(3, 100, { start: true }));
    await flush();
    assert.equal(t.target.runs.length, 2, 'sequence 3 has no slot yet');
    t.send(step(1, 1, { end: true }));
    await flush();
    t.target.complete(2);
    await flush();
    // Sequence 1 ended: its slot (row 0) went to sequence 3, which now runs from a fresh state.
    assert.deepEqual(t.target.rows(3), [
      { input: 100, start: 1, ready: 1, end: 0, corrid: 3n, acc: 0 },
    ]);
    t.target.complete(3);
    await flush();
    assert.equal(value(c), 100);
  });

  void it('releases an idle sequence after max_sequence_idle_microseconds', async () => {
    const t = setup(config('direct { }', 1, 1000));
    t.send(step(5, 1, { start: true }));
    await flush();
    t.target.complete(0);
    await flush();
    const waiting = t.send(step(6, 2, { start: true }));
    await flush();
    assert.equal(t.target.runs.length, 1, 'the only slot is held by sequence 5');
    t.clock.advanceUs(999);
    await flush();
    assert.equal(t.target.runs.length, 1);
    t.clock.advanceUs(1);
    await flush();
    assert.equal(t.target.runs.length, 2, 'sequence 5 was released and 6 took its slot');
    t.target.complete(1);
    await flush();
    assert.equal(value(waiting), 2);
    const late = t.send(step(5, 1));
    await flush();
    assert.equal(errorCode(late), 'SEQUENCE_NOT_STARTED');
  });

  void it('refuses a START past the live-sequence limit instead of queueing it forever', async () => {
    const t = setup(config('direct { }', 1), 1, 2);
    t.send(step(1, 1, { start: true }));
    t.send(step(2, 1, { start: true })); // backlogged: one slot
    const third = t.send(step(3, 1, { start: true }));
    await flush();
    assert.equal(errorCode(third), 'SEQUENCE_LIMIT');
    assert.match(third.error?.message ?? '', /model 'm' has 2 live sequences/);
  });

  void it('a new START on an open id runs the old requests first, then starts afresh', async () => {
    const t = setup(config('direct { }'));
    const a = t.send(step(1, 5, { start: true }));
    const b = t.send(step(1, 6));
    const c = t.send(step(1, 7, { start: true }));
    const d = t.send(step(1, 1));
    for (let i = 0; i < 4; i++) {
      await flush();
      t.target.complete(t.target.runs.length - 1);
    }
    await flush();
    assert.deepEqual([a, b, c, d].map(value), [5, 11, 7, 8]);
  });

  void it('frees the slot when the END request is withdrawn by its client', async () => {
    const t = setup(config('direct { }', 1));
    t.send(step(1, 1, { start: true }));
    await flush();
    const gone = new AbortController();
    const end = t.send(step(1, 1, { end: true, signal: gone.signal }));
    const next = t.send(step(2, 9, { start: true }));
    gone.abort();
    await flush();
    assert.equal(errorCode(end), 'CANCELLED');
    t.target.complete(0);
    await flush();
    t.target.complete(1);
    await flush();
    assert.equal(value(next), 9);
  });
});

void describe('sequence batcher, direct with a queue delay', () => {
  void it('waits for minimum_slot_utilization of the occupied slots, at most the delay', async () => {
    const t = setup(
      config('direct { max_queue_delay_microseconds: 500 minimum_slot_utilization: 1.0 }'),
    );
    const a = t.send(step(1, 1, { start: true }));
    await flush();
    assert.equal(t.target.runs.length, 1, 'one slot occupied, one request ready: full');
    t.target.complete(0);
    await flush();
    t.send(step(2, 2, { start: true }));
    await flush();
    assert.equal(t.target.runs.length, 1, 'two slots occupied, one ready: it waits');
    t.clock.advanceUs(499);
    await flush();
    assert.equal(t.target.runs.length, 1);
    t.clock.advanceUs(1);
    await flush();
    assert.equal(t.target.runs.length, 2, 'the delay ran out: sent with what is ready');
    assert.deepEqual(
      t.target.rows(1).map((r) => r.ready),
      [0, 1],
    );
    t.target.complete(1);
    await flush();
    const a2 = t.send(step(1, 10));
    await flush();
    assert.equal(t.target.runs.length, 2, 'sequence 2 has no request yet: it waits');
    t.send(step(2, 20));
    await flush();
    assert.equal(t.target.runs.length, 3, 'both occupied slots ready: sent at once');
    assert.deepEqual(
      t.target.rows(2).map((r) => [r.ready, r.input]),
      [
        [1, 10],
        [1, 20],
      ],
    );
    t.target.complete(2);
    await flush();
    assert.equal(value(a), 1);
    assert.equal(value(a2), 11);
  });
});

void describe('sequence batcher, oldest', () => {
  void it('compacts the oldest heads of many sequences into one batch', async () => {
    const t = setup(config('oldest { max_candidate_sequences: 8 }', 4), 1);
    const outs = [1, 2, 3, 4, 5].map((id) => t.send(step(id, id * 10, { start: true })));
    await flush();
    // The first START ran alone (an instance was free); the other four form one batch of 4.
    t.target.complete(0);
    await flush();
    assert.deepEqual(
      t.target.rows(1).map((r) => Number(r.corrid)),
      [2, 3, 4, 5],
    );
    t.target.complete(1);
    await flush();
    assert.deepEqual(outs.map(value), [10, 20, 30, 40, 50]);
  });

  void it('waits max_queue_delay_microseconds for a preferred batch, then sends what it has', async () => {
    const t = setup(
      config(
        'oldest { max_candidate_sequences: 8 preferred_batch_size: [ 3 ] max_queue_delay_microseconds: 500 }',
        4,
      ),
    );
    t.send(step(1, 1, { start: true }));
    t.send(step(2, 1, { start: true }));
    await flush();
    assert.equal(t.target.runs.length, 0, 'two of a preferred three: it waits');
    t.send(step(3, 1, { start: true }));
    await flush();
    assert.equal(t.target.runs.length, 1, 'three: sent at once');
    t.target.complete(0);
    t.send(step(1, 1));
    await flush();
    assert.equal(t.target.runs.length, 1);
    t.clock.advanceUs(500);
    await flush();
    assert.equal(t.target.runs.length, 2, 'the delay ran out: sent alone');
    assert.equal(t.target.rows(1).length, 1);
  });
});
