// checkModelAgainstConfig: the ORT backend's load-time comparison of config tensors with the model's
// own signature (count, names, types, dims with the batch dim and reshape, scalars, ragged inputs).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autocompleteCoreFields } from '../../../../../src/config/autocomplete.js';
import { checkModelAgainstConfig } from '../../../../../src/execution/onnxruntime/config/check-model-io.js';
import type { ModelConfig } from '../../../../../src/config/model-config.js';
import { normalizeModelConfig } from '../../../../../src/config/normalize.js';
import { parseModelConfig } from '../../../../../src/config/parse-model-config.js';
import type { ModelIO, ModelIOTensor } from '../../../../../src/config/read-model-io.js';
import { backendConfigRules } from '../../../../../src/repository/backends/registry.js';

function config(text: string): ModelConfig {
  const raw = autocompleteCoreFields(parseModelConfig(text, 'c'), {
    modelName: 'm',
    versionHasOnnxModel: true,
  });
  return normalizeModelConfig(raw, { backends: backendConfigRules() }).config;
}
const t = (name: string, shape: (number | string)[], ortType = 'float32'): ModelIOTensor => ({
  name,
  ortType,
  shape,
});
const io = (inputs: ModelIOTensor[], outputs: ModelIOTensor[]): ModelIO => ({ inputs, outputs });
const ok = (text: string, model: ModelIO): void => checkModelAgainstConfig(config(text), model);
const bad = (text: string, model: ModelIO, message: string | RegExp): void => {
  assert.throws(
    () => ok(text, model),
    (e: unknown) => {
      assert.ok(e instanceof Error && 'code' in e && e.code === 'CONFIG_INVALID', String(e));
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
  );
};

const X = 'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] }';
const Y = 'output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }';

void test('matching tensors pass, with and without a batch dim, symbolic dims as -1', () => {
  ok(`${X} ${Y}`, io([t('x', [3])], [t('y', [3])]));
  ok(`max_batch_size: 4 ${X} ${Y}`, io([t('x', ['N', 3])], [t('y', [-1, 3])]));
  ok(
    'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ -1 ] }',
    io([t('x', ['w'])], [t('y', [''])]),
  );
});

void test('input count, names and types must match', () => {
  bad(
    `${X} ${Y}`,
    io([t('x', [3]), t('z', [3])], [t('y', [3])]),
    "unable to load model 'm', configuration expects 1 inputs, model provides 2",
  );
  bad(
    `${X} ${Y}`,
    io([t('q', [3])], [t('y', [3])]),
    "unexpected inference input 'x' for model 'm', allowed inputs are: q",
  );
  bad(
    `${X} ${Y}`,
    io([t('x', [3])], [t('b', [3]), t('a', [3])]),
    "unexpected inference output 'y' for model 'm', allowed outputs are: a, b",
  );
  bad(
    `${X} ${Y}`,
    io([t('x', [3], 'float16')], [t('y', [3])]),
    "unable to load model 'm', configuration expects datatype TYPE_FP32 for input 'x', model provides ONNX type float16",
  );
});

void test('an input may fix a dynamic model dim; an output must match exactly', () => {
  ok(`${X} ${Y}`, io([t('x', [-1])], [t('y', [3])]));
  bad(
    `${X} ${Y}`,
    io([t('x', [3])], [t('y', [-1])]),
    "model 'm', tensor 'y': the model expects 1 dimensions (shape [-1]) but the model configuration specifies 1 dimensions (shape [3])",
  );
  bad(
    `${X} ${Y}`,
    io([t('x', [3, 1])], [t('y', [3])]),
    /tensor 'x': the model expects 2 dimensions \(shape \[3,1\]\) but the model configuration specifies 1 dimensions/,
  );
});

void test('batching needs a dynamic first model dim; the complete shape is named', () => {
  bad(
    `max_batch_size: 2 ${X} ${Y}`,
    io([t('x', [1, 3])], [t('y', [-1, 3])]),
    /tensor 'x': for the model to support batching the shape should have at least 1 dimension and the first dimension must be -1; but shape expected by the model is \[1,3\]/,
  );
  bad(
    `max_batch_size: 2 ${X} ${Y}`,
    io([t('x', [-1, 4])], [t('y', [-1, 3])]),
    /making complete shape \[-1,3\]\)$/,
  );
});

void test('a reshape is what the model must take; scalars accept only 1s', () => {
  ok(
    'input { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape { shape: [ 2, 2 ] } } output { name: "y" data_type: TYPE_FP32 dims: [ 1 ] }',
    io([t('x', [2, 2])], [t('y', [])]),
  );
  ok(
    'max_batch_size: 2 input { name: "x" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } } output { name: "y" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } }',
    io([t('x', [-1])], [t('y', ['b'])]),
  );
  bad(
    `input { name: "x" data_type: TYPE_FP32 dims: [ 2 ] } ${Y}`,
    io([t('x', [])], [t('y', [3])]),
    /scalar tensor 'x', should only provide 1 in the model configuration/,
  );
});

void test('a ragged input needs a model shape of [-1]', () => {
  const text = `max_batch_size: 4 input { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ${Y}`;
  ok(text, io([t('x', [-1])], [t('y', [-1, 3])]));
  bad(
    text,
    io([t('x', [-1, 3])], [t('y', [-1, 3])]),
    "unable to load model 'm', configuration expects model provides input with shape [-1] for ragged input 'x', model provides [-1,3]",
  );
});
