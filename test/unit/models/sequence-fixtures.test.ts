// The sequence-batching fixtures, run in-process in onnxruntime-node with the control inputs and
// implicit state fed by hand, as the sequence batcher will feed them: sequence_accumulator's
// running sums per slot, its READY mask and CORRID echo, and sequence_accumulator_explicit's
// control values in the output. Their configs are read with the real parser and checked against
// the models' signatures.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import ort from 'onnxruntime-node';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { generateFixtures } from '../../../scripts/generate-models.js';
import { EXPLICIT_WEIGHTS } from '../../../scripts/onnx/sequence-fixtures.js';
import { sequenceModelIo, sessionIo } from '../../helpers/sequence-model-io.js';
import { openSession, tempDir } from './model-dirs.js';

/** One batch row of sequence_accumulator: its request (if READY) and the slot's state. */
interface Row {
  readonly input: number;
  readonly start: 0 | 1;
  readonly ready: 0 | 1;
  readonly end: 0 | 1;
  readonly corrid: bigint;
  readonly acc: number;
}

interface RowResult {
  readonly output: number;
  readonly corridOut: bigint;
  readonly accOut: number;
}

const column = (rows: readonly Row[], pick: (r: Row) => number): ort.Tensor =>
  new ort.Tensor('int32', Int32Array.from(rows, pick), [rows.length, 1]);

async function accumulate(
  session: ort.InferenceSession,
  rows: readonly Row[],
): Promise<RowResult[]> {
  const r = await session.run({
    INPUT: column(rows, (x) => x.input),
    START: column(rows, (x) => x.start),
    READY: column(rows, (x) => x.ready),
    END: column(rows, (x) => x.end),
    CORRID: new ort.Tensor(
      'uint64',
      BigUint64Array.from(rows, (x) => x.corrid),
      [rows.length, 1],
    ),
    ACC_IN: column(rows, (x) => x.acc),
  });
  const output = r.OUTPUT?.data;
  const corrid = r.CORRID_OUT?.data;
  const acc = r.ACC_OUT?.data;
  assert.ok(output instanceof Int32Array && acc instanceof Int32Array);
  assert.ok(corrid instanceof BigUint64Array);
  assert.deepEqual(r.OUTPUT?.dims, [rows.length, 1]);
  return rows.map((_, i) => ({
    output: output[i] as number,
    corridOut: corrid[i] as bigint,
    accOut: acc[i] as number,
  }));
}

void describe('sequence fixtures', () => {
  let repo: Awaited<ReturnType<typeof tempDir>>;
  const sessions: ort.InferenceSession[] = [];
  const open = async (model: string): Promise<ort.InferenceSession> => {
    const s = await openSession(repo.dir, model);
    sessions.push(s);
    return s;
  };
  before(async () => {
    repo = await tempDir('sequence-fixtures');
    await generateFixtures(repo.dir);
  });
  after(async () => {
    for (const s of sessions) await s.release();
    await repo.dispose();
  });

  for (const model of [
    'sequence_accumulator',
    'sequence_accumulator_explicit',
    'silero_vad_direct',
  ]) {
    void it(`${model}: the config's inputs, controls and states are exactly the model's`, async () => {
      const file = path.join(repo.dir, model, 'config.pbtxt');
      const raw = parseModelConfig(await readFile(file), file);
      assert.equal(raw.name, model);
      assert.ok(raw.sequence_batching?.direct !== undefined, 'direct strategy');
      assert.deepEqual(sequenceModelIo(raw), sessionIo(await open(model)));
    });
  }

  void it('sequence_accumulator: controls and idle-microseconds as Triton spells them', async () => {
    const file = path.join(repo.dir, 'sequence_accumulator', 'config.pbtxt');
    const seq = parseModelConfig(await readFile(file), file).sequence_batching;
    assert.equal(seq?.max_sequence_idle_microseconds, 1_000_000);
    assert.deepEqual(
      seq?.control_input?.map((c) => [c.name, c.control?.[0]?.kind]),
      [
        ['START', 'CONTROL_SEQUENCE_START'],
        ['READY', 'CONTROL_SEQUENCE_READY'],
        ['END', 'CONTROL_SEQUENCE_END'],
        ['CORRID', 'CONTROL_SEQUENCE_CORRID'],
      ],
    );
    assert.deepEqual(seq?.control_input?.[0]?.control?.[0]?.int32_false_true, [0, 1]);
    assert.equal(seq?.state?.[0]?.initial_state?.[0]?.zero_data, true);
  });

  void it('sequence_accumulator: two slots keep their own running sums across steps', async () => {
    const session = await open('sequence_accumulator');
    // Slot 0 carries sequence 7 (1, 2, 3); slot 1 carries a uint64 id past 2^63 (10, then a step
    // with no request, then 20 ending it). ACC_OUT is fed back as ACC_IN, as implicit state is.
    const big = 2n ** 63n + 5n;
    const plan: [Omit<Row, 'acc'>, Omit<Row, 'acc'>][] = [
      [
        { input: 1, start: 1, ready: 1, end: 0, corrid: 7n },
        { input: 10, start: 1, ready: 1, end: 0, corrid: big },
      ],
      [
        { input: 2, start: 0, ready: 1, end: 0, corrid: 7n },
        { input: 999, start: 0, ready: 0, end: 0, corrid: big },
      ],
      [
        { input: 3, start: 0, ready: 1, end: 1, corrid: 7n },
        { input: 20, start: 0, ready: 1, end: 1, corrid: big },
      ],
    ];
    let acc = [0, 0];
    const outputs: number[][] = [];
    for (const step of plan) {
      const rows = step.map((r, i) => ({ ...r, acc: acc[i] as number }));
      const got = await accumulate(session, rows);
      assert.deepEqual(
        got.map((g) => g.corridOut),
        [7n, big],
      );
      outputs.push(got.map((g) => g.output));
      acc = got.map((g) => g.accOut);
    }
    // The idle step outputs 0 and leaves slot 1's sum at 10.
    assert.deepEqual(outputs, [
      [1, 10],
      [3, 0],
      [6, 30],
    ]);
    assert.deepEqual(acc, [6, 30]);
  });

  void it('sequence_accumulator: START discards whatever state the slot held', async () => {
    const session = await open('sequence_accumulator');
    const [fresh, continued] = await accumulate(session, [
      { input: 5, start: 1, ready: 1, end: 0, corrid: 1n, acc: 1234 },
      { input: 5, start: 0, ready: 1, end: 0, corrid: 2n, acc: 1234 },
    ]);
    assert.deepEqual(fresh, { output: 5, corridOut: 1n, accOut: 5 });
    assert.deepEqual(continued, { output: 1239, corridOut: 2n, accOut: 1239 });
  });

  void it('sequence_accumulator_explicit: every START/END/READY combination shows in OUTPUT', async () => {
    const session = await open('sequence_accumulator_explicit');
    const combos = Array.from({ length: 8 }, (_, i) => ({
      start: i & 1,
      end: (i >> 1) & 1,
      ready: (i >> 2) & 1,
      input: 3 + i,
    }));
    const col = (pick: (c: (typeof combos)[number]) => number) =>
      new ort.Tensor('int32', Int32Array.from(combos, pick), [combos.length, 1]);
    const r = await session.run({
      INPUT: col((c) => c.input),
      START: col((c) => c.start),
      END: col((c) => c.end),
      READY: col((c) => c.ready),
    });
    assert.deepEqual(
      Array.from(r.OUTPUT?.data as Int32Array),
      combos.map(
        (c) =>
          c.input +
          c.start * EXPLICIT_WEIGHTS.START +
          c.end * EXPLICIT_WEIGHTS.END +
          c.ready * EXPLICIT_WEIGHTS.READY,
      ),
    );
    assert.deepEqual(Array.from(r.OUTPUT?.data as Int32Array).slice(0, 3), [3, 104, 1005]);
  });
});
