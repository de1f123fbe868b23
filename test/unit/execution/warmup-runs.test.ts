// model_warmup samples as the requests each worker runs before it reports ready: shapes with and
// without the batch dim, zero and random data per datatype, and samples that cannot run yet.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

const runsOf = (text: string) => buildWarmupRuns(pipeline(text).config);

void describe('buildWarmupRuns', () => {
  void it('no model_warmup: nothing to run', () => {
    assert.deepEqual(runsOf(`${input('x', 'TYPE_FP32', '3')} ${OUTPUT}`), {
      runs: [],
      skipped: [],
    });
  });

  void it('a batching model gets batch_size rows; zero data is zero; every output is fetched', () => {
    const { runs } = runsOf(
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

  void it('a model that does not batch gets the dims as they are', () => {
    const { runs } = runsOf(
      `${input('x', 'TYPE_FP32', '2, 3')} ${OUTPUT} ${sample('one', 1, value('x', 'TYPE_FP32', '2, 3', 'zero_data: true'))}`,
    );
    assert.deepEqual(runs[0]?.request.inputs[0]?.shape, [2, 3]);
    assert.equal(runs[0]?.count, 1, 'an unset count runs once');
  });

  void it('zero BYTES data is empty elements: a zero length prefix each', () => {
    const { runs } = runsOf(
      `max_batch_size: 2 ${input('s', 'TYPE_STRING', '-1')} ${OUTPUT} ${sample('strings', 2, value('s', 'TYPE_STRING', '3', 'zero_data: true'))}`,
    );
    const d = runs[0]?.request.inputs[0] ?? assert.fail('no input');
    assert.deepEqual([d.datatype, d.shape, d.byteLength], ['BYTES', [2, 3], 24]);
    assert.ok(byteView(d).every((b) => b === 0));
  });

  void it('random data: random bytes, 0/1 for BOOL, and empty elements for BYTES (as in Triton)', () => {
    const { runs } = runsOf(
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

  void it('a sample reading input_data_file is skipped with the reason; the others still run', () => {
    const { runs, skipped } = runsOf(
      `max_batch_size: 1 ${input('x', 'TYPE_FP32', '3')} ${OUTPUT}
       ${sample('from_file', 1, value('x', 'TYPE_FP32', '3', 'input_data_file: "x.bin"'))}
       ${sample('zeros', 1, value('x', 'TYPE_FP32', '3', 'zero_data: true'))}`,
    );
    assert.deepEqual(
      runs.map((r) => r.name),
      ['zeros'],
    );
    assert.deepEqual(skipped, [
      `model_warmup sample 'from_file' is skipped: input 'x' reads input_data_file "x.bin", ` +
        `which infernode does not load yet (zero_data and random_data samples run)`,
    ]);
  });
});
