// The ORT backend's autocomplete: max_batch_size / dynamic_batching / input / output filled from
// the model's signature (triton-reference.md §4.1), on plain ModelIO data.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  autocomplete,
  needsModelIO,
} from '../../../../../src/execution/onnxruntime/config/ort-autocomplete.js';
import type { RawModelConfig } from '../../../../../src/config/generated/model-config-schema.js';
import { parseModelConfig } from '../../../../../src/config/parse-model-config.js';
import type { ModelIO } from '../../../../../src/config/read-model-io.js';
import { InferenceServerError } from '../../../../../src/errors.js';

const opts = { defaultMaxBatchSize: 4 };
const parse = (text: string): RawModelConfig => parseModelConfig(text, 'config.pbtxt');

/** [batch, 3] fp32 in, [batch, 2] int64 out: every tensor has a dynamic first dim. */
const batchable: ModelIO = {
  inputs: [{ name: 'x', ortType: 'float32', shape: ['batch', 3] }],
  outputs: [{ name: 'y', ortType: 'int64', shape: [-1, 2] }],
};

function errorOf(fn: () => unknown): InferenceServerError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InferenceServerError);
    return e;
  }
  assert.fail('expected an error');
}

void test('a batchable model gets the default max_batch_size, a warning, dynamic_batching and batch-less dims', () => {
  const { config, warnings } = autocomplete(parse('name: "m"'), batchable, opts);
  assert.deepEqual(config, {
    name: 'm',
    max_batch_size: 4,
    dynamic_batching: {},
    input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [3] }],
    output: [{ name: 'y', data_type: 'TYPE_INT64', dims: [2] }],
  });
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0] as string,
    /^autofilled max_batch_size to 4 for model 'm' since batching is supported/,
  );
});

void test('--backend-config default-max-batch-size overrides the 4; 1 adds no dynamic batcher', () => {
  const eight = autocomplete(parse('name: "m"'), batchable, { defaultMaxBatchSize: 8 });
  assert.equal(eight.config.max_batch_size, 8);
  assert.match(eight.warnings[0] as string, /^autofilled max_batch_size to 8 /);

  const one = autocomplete(parse('name: "m"'), batchable, { defaultMaxBatchSize: 1 });
  assert.equal(one.config.max_batch_size, 1);
  assert.equal(one.config.dynamic_batching, undefined);

  const zero = autocomplete(parse('name: "m"'), batchable, { defaultMaxBatchSize: 0 });
  assert.equal(zero.config.max_batch_size, 0);
  assert.deepEqual(
    zero.config.input?.[0]?.dims,
    [-1, 3],
    'no batch dim is dropped at max_batch_size 0',
  );
});

void test('an explicit max_batch_size is kept without a warning, and an existing scheduler is not replaced', () => {
  const { config, warnings } = autocomplete(
    parse('name: "m" max_batch_size: 16 dynamic_batching { max_queue_delay_microseconds: 5 }'),
    batchable,
    opts,
  );
  assert.equal(config.max_batch_size, 16);
  assert.deepEqual(config.dynamic_batching, { max_queue_delay_microseconds: 5 });
  assert.deepEqual(warnings, []);
  const seq = autocomplete(
    parse('name: "m" max_batch_size: 2 sequence_batching { }'),
    batchable,
    opts,
  );
  assert.equal(seq.config.dynamic_batching, undefined);
});

void test('a model without a dynamic first dim on every tensor cannot batch', () => {
  const fixed: ModelIO = {
    inputs: [{ name: 'x', ortType: 'float32', shape: [1, 3] }],
    outputs: [{ name: 'y', ortType: 'float32', shape: ['n', 3] }],
  };
  const { config, warnings } = autocomplete(parse('name: "m"'), fixed, opts);
  assert.equal(config.max_batch_size, undefined);
  assert.equal(config.dynamic_batching, undefined);
  assert.deepEqual(config.input, [{ name: 'x', data_type: 'TYPE_FP32', dims: [1, 3] }]);
  assert.deepEqual(config.output, [{ name: 'y', data_type: 'TYPE_FP32', dims: [-1, 3] }]);
  assert.deepEqual(warnings, []);
});

void test('max_batch_size > 0 on a model that cannot batch is the Triton autofill error', () => {
  const fixed: ModelIO = {
    inputs: [{ name: 'x', ortType: 'float32', shape: [2, 3] }],
    outputs: [{ name: 'y', ortType: 'float32', shape: ['', 3] }],
  };
  const e = errorOf(() => autocomplete(parse('name: "m" max_batch_size: 8'), fixed, opts));
  assert.equal(e.code, 'CONFIG_INVALID');
  assert.match(
    e.message,
    /^autofill failed for model 'm': model does not support batching while non-zero max_batch_size is specified/,
  );
  assert.match(e.message, /x \[2,3\], y \[\?,3\]/, 'names the tensors and their shapes');
});

void test('rank-0 tensors: dims [1], plus an empty reshape only when batching', () => {
  const scalar: ModelIO = {
    inputs: [{ name: 's', ortType: 'bool', shape: [] }],
    outputs: [{ name: 'o', ortType: 'float64', shape: [] }],
  };
  const plain = autocomplete(parse('name: "m"'), scalar, opts);
  assert.equal(plain.config.max_batch_size, undefined, 'rank 0 cannot batch');
  assert.deepEqual(plain.config.input, [{ name: 's', data_type: 'TYPE_BOOL', dims: [1] }]);
  assert.deepEqual(plain.config.output, [{ name: 'o', data_type: 'TYPE_FP64', dims: [1] }]);

  const perItem: ModelIO = {
    inputs: [{ name: 's', ortType: 'string', shape: ['b'] }],
    outputs: [{ name: 'o', ortType: 'float16', shape: [-1] }],
  };
  const batched = autocomplete(parse('name: "m"'), perItem, opts);
  assert.deepEqual(batched.config.input, [
    { name: 's', data_type: 'TYPE_STRING', dims: [1], reshape: { shape: [] } },
  ]);
  assert.deepEqual(batched.config.output, [
    { name: 'o', data_type: 'TYPE_FP16', dims: [1], reshape: { shape: [] } },
  ]);
});

void test('a partial config keeps its own list and fills only the missing one', () => {
  const raw = parse(
    'name: "m" max_batch_size: 2 input [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] format: FORMAT_NONE } ]',
  );
  assert.ok(needsModelIO(raw));
  const { config } = autocomplete(raw, batchable, opts);
  assert.deepEqual(config.input, raw.input, 'the configured input is untouched');
  assert.deepEqual(config.output, [{ name: 'y', data_type: 'TYPE_INT64', dims: [2] }]);
});

void test('a config with inputs and outputs skips autocomplete entirely, even max_batch_size', () => {
  const raw = parse(
    'name: "m" input { name: "x" data_type: TYPE_FP32 dims: [3] } output { name: "y" data_type: TYPE_INT64 dims: [2] }',
  );
  assert.equal(needsModelIO(raw), false);
  const { config, warnings } = autocomplete(raw, batchable, opts);
  assert.equal(config, raw);
  assert.deepEqual(warnings, []);
  assert.equal(
    needsModelIO(parse('batch_input { } output { }')),
    false,
    'batch_input counts as an input',
  );
});

void test('an ORT type infernode cannot serve is UNSUPPORTED, naming the tensor', () => {
  const odd: ModelIO = { inputs: [{ name: 'q', ortType: 'int4', shape: [1] }], outputs: [] };
  const e = errorOf(() => autocomplete(parse('name: "m"'), odd, opts));
  assert.equal(e.code, 'UNSUPPORTED');
  assert.match(e.message, /input "q" has ONNX element type "int4"/);
});

void test('the model order of inputs and outputs is kept', () => {
  const io: ModelIO = {
    inputs: ['b', 'a', 'c'].map((name) => ({ name, ortType: 'uint8', shape: [4] })),
    outputs: ['z', 'y'].map((name) => ({ name, ortType: 'int32', shape: [4] })),
  };
  const { config } = autocomplete(parse('name: "m"'), io, opts);
  assert.deepEqual(
    config.input?.map((t) => t.name),
    ['b', 'a', 'c'],
  );
  assert.deepEqual(
    config.output?.map((t) => t.name),
    ['z', 'y'],
  );
});
