// model_warmup samples as the requests each worker runs before it reports ready: shapes with and
// without the batch dim, zero and random data per datatype, and input_data_file rows.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildWarmupRuns } from '../../../src/execution/warmup-runs.js';
import { byteView } from '../../../src/memory/views.js';
import { pipeline } from '../config/pipeline-helpers.js';

const input = (name: string, type: string, dims: string) =>
  `input { name: "${name}" data_type: ${type} dims: [ ${dims} ] }`;
const OUTPUT = 'output { name: "y" data_type: TYPE_FP32 dims: [ 1 ] }';
const sample = (name: string, batch: number, inputs: string, count = '') =>
  `model_warmup { name: "${name}" batch_size: ${batch} ${count} ${inputs} }`;
const value = (key: string, type: string, dims: string, source: string) =>
  `inputs { key: "${key}" value { data_type: ${type} dims: [ ${dims} ] ${source} } }`;

/** A model directory whose warmup/ holds x.bin (3 FP32) and s.bin (2 BYTES elements). */
let modelDir: string;
const X_ROW = new Float32Array([1.5, -2, 3]);
const S_ROW = Uint8Array.of(2, 0, 0, 0, 0x68, 0x69, 0, 0, 0, 0);
before(async () => {
  modelDir = await mkdtemp(path.join(os.tmpdir(), 'infernode-warmup-runs-'));
  await mkdir(path.join(modelDir, 'warmup'));
  await writeFile(path.join(modelDir, 'warmup', 'x.bin'), new Uint8Array(X_ROW.buffer));
  await writeFile(path.join(modelDir, 'warmup', 's.bin'), S_ROW);
});
after(async () => {
  await rm(modelDir, { recursive: true, force: true });
});

const runsOf = (text: string) => buildWarmupRuns(pipeline(text).config, { modelDir });

void describe('buildWarmupRuns', () => {
  void it('no model_warmup: nothing to run', async () => {
    assert.deepEqual(await runsOf(`${input('x', 'TYPE_FP32', '3')} ${OUTPUT}`), { runs: [] });
  });

  void it('a batching model gets batch_size rows; zero data is zero; every output is fetched', async () => {
    const { runs } = await runsOf(
      `max_batch_size: 4 ${input('a', 'TYPE_FP32', '3')} ${input('b', 'TYPE_INT64', '2, 2')} ${OUTPUT}
       ${sample('zeros', 3, `${value('a', 'TYPE_FP32', '3', 'zero_data: true')} ${value('b', 'TYPE_INT64', '2, 2', 'zero_data: true')}`, 'count: 5')}`,
    );
    assert.equal(runs.length, 1);
    const run = runs[0] ?? assert.fail('no run');
    assert.equal(run.name, 'zeros');
    assert.equal(run.count, 5);
    assert.deepEqual(run.request.outputs, []);
    assert.deepEqual(
      run.request.inputs.map((d) => [d.name, d.datatype, d.shape, d.byteLength]),
      [
        ['a', 'FP32', [3, 3], 36],
        ['b', 'INT64', [3, 2, 2], 96],
      ],
    );
    assert.equal(run.request.inputs[0]?.buffer, run.request.inputs[1]?.buffer, 'one block');
    for (const d of run.request.inputs) assert.ok(byteView(d).every((b) => b === 0));
  });

  void it('a model that does not batch gets the dims as they are', async () => {
    const { runs } = await runsOf(
      `${input('x', 'TYPE_FP32', '2, 3')} ${OUTPUT} ${sample('one', 1, value('x', 'TYPE_FP32', '2, 3', 'zero_data: true'))}`,
    );
    assert.deepEqual(runs[0]?.request.inputs[0]?.shape, [2, 3]);
    assert.equal(runs[0]?.count, 1, 'an unset count runs once');
  });

  void it('zero BYTES data is empty elements: a zero length prefix each', async () => {
    const { runs } = await runsOf(
      `max_batch_size: 2 ${input('s', 'TYPE_STRING', '-1')} ${OUTPUT} ${sample('strings', 2, value('s', 'TYPE_STRING', '3', 'zero_data: true'))}`,
    );
    const d = runs[0]?.request.inputs[0] ?? assert.fail('no input');
    assert.deepEqual([d.datatype, d.shape, d.byteLength], ['BYTES', [2, 3], 24]);
    assert.ok(byteView(d).every((b) => b === 0));
  });

  void it('random data: random bytes, 0/1 for BOOL, and empty elements for BYTES (as in Triton)', async () => {
    const { runs } = await runsOf(
      `max_batch_size: 1 ${input('f', 'TYPE_FP32', '64')} ${input('b', 'TYPE_BOOL', '64')} ${input('s', 'TYPE_STRING', '2')} ${OUTPUT}
       ${sample('random', 1, `${value('f', 'TYPE_FP32', '64', 'random_data: true')} ${value('b', 'TYPE_BOOL', '64', 'random_data: true')} ${value('s', 'TYPE_STRING', '2', 'random_data: true')}`)}`,
    );
    const [f, b, s] = runs[0]?.request.inputs ?? [];
    assert.ok(f !== undefined && b !== undefined && s !== undefined);
    assert.ok(
      byteView(f).some((x) => x !== 0),
      '256 random bytes are not all zero',
    );
    assert.ok(byteView(b).every((x) => x === 0 || x === 1));
    assert.equal(s.byteLength, 8);
    assert.ok(byteView(s).every((x) => x === 0));
  });

  void it('input_data_file: one row, copied into each of batch_size rows, as in Triton', async () => {
    const { runs } = await runsOf(
      `max_batch_size: 4 ${input('x', 'TYPE_FP32', '3')} ${input('s', 'TYPE_STRING', '2')} ${OUTPUT}
       ${sample('from_file', 3, `${value('x', 'TYPE_FP32', '3', 'input_data_file: "x.bin"')} ${value('s', 'TYPE_STRING', '2', 'input_data_file: "s.bin"')}`)}
       ${sample('zeros', 1, `${value('x', 'TYPE_FP32', '3', 'zero_data: true')} ${value('s', 'TYPE_STRING', '2', 'zero_data: true')}`)}`,
    );
    assert.deepEqual(
      runs.map((r) => r.name),
      ['from_file', 'zeros'],
    );
    const [x, s] = runs[0]?.request.inputs ?? [];
    assert.ok(x !== undefined && s !== undefined);
    assert.deepEqual([x.shape, x.byteLength], [[3, 3], 36]);
    assert.deepEqual(Array.from(new Float32Array(byteView(x).slice().buffer)), [
      ...X_ROW,
      ...X_ROW,
      ...X_ROW,
    ]);
    assert.deepEqual([s.datatype, s.shape, s.byteLength], ['BYTES', [3, 2], 30]);
    assert.deepEqual(Array.from(byteView(s)), [...S_ROW, ...S_ROW, ...S_ROW]);
  });

  void it('a model that does not batch gets the file as it is', async () => {
    const { runs } = await runsOf(
      `${input('x', 'TYPE_FP32', '3')} ${OUTPUT} ${sample('one', 1, value('x', 'TYPE_FP32', '3', 'input_data_file: "x.bin"'))}`,
    );
    const x = runs[0]?.request.inputs[0] ?? assert.fail('no input');
    assert.deepEqual(x.shape, [3]);
    assert.deepEqual(Array.from(new Float32Array(byteView(x).slice().buffer)), [...X_ROW]);
  });

  void it('a file that cannot be used rejects, naming the model, sample, input and file', async () => {
    await assert.rejects(
      runsOf(
        `max_batch_size: 1 ${input('x', 'TYPE_FP32', '3')} ${OUTPUT}
         ${sample('missing', 1, value('x', 'TYPE_FP32', '3', 'input_data_file: "nope.bin"'))}`,
      ),
      {
        code: 'MODEL_LOAD_FAILED',
        message:
          "model 'm' warmup sample 'missing' input 'x': expected the file warmup/nope.bin, found none",
      },
    );
  });
});
