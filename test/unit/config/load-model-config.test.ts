// loadModelConfig over real directories: which files it reads, when it opens the model, what it
// returns (frozen), and the pipeline's errors. Model signatures come from an injected reader, except
// in the end-to-end case, which runs onnxruntime-node on a generated model.

import { parseBackendConfig } from '../../../src/config/backend-config.js';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { loadModelConfig } from '../../../src/config/load-model-config.js';
import { ELEM, encodeModel, node, tensorValue } from '../../../scripts/onnx/graph-builder.js';
import {
  loadAndBind,
  loadError,
  neverRead,
  recorder,
  tempRepository,
} from './model-dir-helpers.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';

const repo = tempRepository('infernode-load-config-');
const model = repo.model;

void test('no config.pbtxt: everything is autocompleted from the highest version holding model.onnx', async () => {
  const dir = await model('auto', {
    '1/model.onnx': 'v1',
    '3/model.onnx': 'v3',
    '10/': '',
    '02/model.onnx': 'leading zero: not a version',
    'abc/model.onnx': 'not a version',
  });
  const r = recorder();
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    readModelIO: r.read,
  });
  assert.deepEqual(r.paths, [path.join(dir, '3', 'model.onnx')]);
  assert.equal(loaded.configPath, undefined);
  assert.equal(loaded.config.name, 'auto');
  assert.equal(loaded.config.max_batch_size, 4);
  assert.deepEqual(loaded.config.dynamic_batching?.preferred_batch_size, [4]);
  assert.deepEqual(loaded.config.input, [
    {
      name: 'x',
      data_type: 'TYPE_FP32',
      format: 'FORMAT_NONE',
      dims: [3],
      allow_ragged_batch: false,
      optional: false,
    },
  ]);
  assert.deepEqual(loaded.config.instance_group, [
    { name: 'auto', kind: 'KIND_CPU', count: 2, gpus: [] },
  ]);
  assert.equal(loaded.warnings.length, 1);
  assert.match(loaded.warnings[0] as string, /^autofilled max_batch_size to 4 for model 'auto'/);
});

void test('the result is deeply frozen', async () => {
  const dir = await model('frozen', { '1/model.onnx': '' });
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    readModelIO: recorder().read,
  });
  assert.ok(Object.isFrozen(loaded));
  assert.ok(Object.isFrozen(loaded.warnings));
  assert.ok(Object.isFrozen(loaded.config.input[0]?.dims));
  assert.ok(Object.isFrozen(loaded.config.instance_group[0]));
  assert.ok(Object.isFrozen(loaded.config.parameters));
  assert.throws(() => {
    (loaded.config as { max_batch_size: number }).max_batch_size = 1;
  }, TypeError);
});

void test('the ORT backend reads its parameters once, after the config, with their warnings', async () => {
  const dir = await model('params', {
    'config.pbtxt': `input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }
       parameters { key: "execution_mode" value { string_value: "1" } }
       parameters { key: "share_session_between_instances" value { string_value: "1" } }`,
    '1/model.onnx': '',
  });
  const { bound, warnings } = await loadAndBind(dir, { readModelIO: neverRead });
  assert.equal(bound.threadParameters.executionMode, 'parallel');
  assert.ok(Object.isFrozen(bound.threadParameters));
  assert.deepEqual(warnings, [
    'parameter "share_session_between_instances" is not applied: each instance is a worker ' +
      'thread with its own session; sessions cannot be shared across threads',
  ]);
  const bad = await model('bad_param', {
    'config.pbtxt': `input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }
       optimization { graph { level: 5 } }`,
    '1/model.onnx': '',
  });
  const e = await loadError(bad, { readModelIO: neverRead });
  assert.equal(e.code, 'CONFIG_INVALID');
  assert.equal(e.message, 'optimization.graph.level: expected -1, 0, 1 or 2, got 5');
});

void test('a config with inputs and outputs never opens the model', async () => {
  const dir = await model('complete', {
    'config.pbtxt':
      'max_batch_size: 2 input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }',
    '1/model.onnx': '',
  });
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    readModelIO: neverRead,
  });
  assert.equal(loaded.configPath, path.join(dir, 'config.pbtxt'));
  assert.equal(loaded.config.max_batch_size, 2);
  assert.equal(
    loaded.config.dynamic_batching,
    undefined,
    'autocomplete was skipped, so no dynamic batcher',
  );
  assert.deepEqual(loaded.warnings, []);
});

void test('--backend-config=default-max-batch-size reaches autocomplete', async () => {
  const dir = await model('mbs', { '1/model.onnx': '' });
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    readModelIO: recorder().read,
    backendConfig: parseBackendConfig(['default-max-batch-size=32']),
  });
  assert.equal(loaded.config.max_batch_size, 32);
});

void test('default_model_filename may name a directory holding model.onnx (external-data models)', async () => {
  const dir = await model('external', {
    'config.pbtxt': 'backend: "onnxruntime" default_model_filename: "big.onnx"',
    '1/big.onnx/model.onnx': '',
    '1/big.onnx/weights.bin': '',
  });
  const r = recorder();
  await loadModelConfig(dir, { backends: backendConfigRules(), readModelIO: r.read });
  assert.deepEqual(r.paths, [path.join(dir, '1', 'big.onnx', 'model.onnx')]);
});

void test('--disable-auto-complete-config: config.pbtxt is required and the model is not opened', async () => {
  const none = await model('strict_none', { '1/model.onnx': '' });
  const e = await loadError(none, { disableAutoComplete: true, readModelIO: neverRead });
  assert.equal(e.code, 'CONFIG_INVALID');
  assert.equal(
    e.message,
    `model 'strict_none': ${path.join(none, 'config.pbtxt')} is required when auto-complete is disabled`,
  );

  const partial = await model('strict_partial', {
    'config.pbtxt': 'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] }',
    '1/model.onnx': '',
  });
  const loaded = await loadModelConfig(partial, {
    backends: backendConfigRules(),
    disableAutoComplete: true,
    readModelIO: neverRead,
  });
  assert.equal(loaded.config.backend, 'onnxruntime', 'core fields are still filled');
  assert.deepEqual(loaded.config.output, []);
});

void test('--model-config-name picks configs/<name>.pbtxt when present, else config.pbtxt', async () => {
  const io =
    'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }';
  const dir = await model('custom', {
    'config.pbtxt': `max_batch_size: 1 ${io}`,
    'configs/h100.pbtxt': `max_batch_size: 7 ${io}`,
    '1/model.onnx': '',
  });
  const custom = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    configName: 'h100',
    readModelIO: neverRead,
  });
  assert.equal(custom.config.max_batch_size, 7);
  assert.equal(custom.configPath, path.join(dir, 'configs', 'h100.pbtxt'));
  const fallback = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    configName: 'a100',
    readModelIO: neverRead,
  });
  assert.equal(fallback.config.max_batch_size, 1);
  assert.equal((await loadError(dir, { configName: '../x' })).code, 'CONFIG_INVALID');
});

void test('syntax errors name the config file path as given, with line and column', async () => {
  const dir = await model('syntax', {
    'config.pbtxt': 'name: "syntax"\nmax_batch: 8\n',
    '1/model.onnx': '',
  });
  const e = await loadError(dir, { readModelIO: neverRead });
  assert.equal(e.code, 'CONFIG_SYNTAX');
  assert.equal(
    e.message,
    `${path.join(dir, 'config.pbtxt')}:2:1: unknown field "max_batch" in ModelConfig (did you mean "max_batch_size"?)`,
  );
});

void test('a wrong name or a non-ONNX backend fails before the model is opened', async () => {
  const named = await model('dirname', { 'config.pbtxt': 'name: "other"', '1/model.onnx': '' });
  const e1 = await loadError(named, { readModelIO: neverRead });
  assert.equal(
    e1.message,
    "unexpected directory name 'dirname' for model 'other', directory name must equal model name",
  );
  const python = await model('py', { 'config.pbtxt': 'backend: "python"', '1/model.py': '' });
  assert.equal((await loadError(python, { readModelIO: neverRead })).code, 'UNSUPPORTED');
  const empty = await model('empty', { '1/': '' });
  assert.match(
    (await loadError(empty, { readModelIO: neverRead })).message,
    /must specify 'platform' or 'backend' for 'empty'/,
  );
});

void test('autocomplete without a model file, and a missing model directory, are clear errors', async () => {
  const dir = await model('nofile', { 'config.pbtxt': 'backend: "onnxruntime"', '1/': '' });
  const e = await loadError(dir, { readModelIO: neverRead });
  assert.equal(e.code, 'CONFIG_INVALID');
  assert.equal(
    e.message,
    `model 'nofile': cannot auto-complete the config: no numbered version directory of ${dir} contains model.onnx`,
  );
  const gone = await loadError(path.join(repo.root(), 'does-not-exist'));
  assert.equal(gone.code, 'MODEL_LOAD_FAILED');
});

void test('a partially written config is checked against the model it was completed from', async () => {
  const dir = await model('mismatch', {
    'config.pbtxt': 'max_batch_size: 2 input { name: "x" data_type: TYPE_INT32 dims: [ 3 ] }',
    '1/model.onnx': '',
  });
  const e = await loadError(dir, { readModelIO: recorder().read });
  assert.equal(e.code, 'CONFIG_INVALID');
  assert.equal(
    e.message,
    "unable to load model 'mismatch', configuration expects datatype TYPE_INT32 for input 'x', model provides ONNX type float32",
  );
});

void test('end to end with onnxruntime-node: an ONNX file and no config', async () => {
  const dir = await model('e2e', { '1/': '' });
  const bytes = encodeModel({
    name: 'e2e',
    inputs: [
      tensorValue('INPUT0', ELEM.INT32, ['batch', 4]),
      tensorValue('INPUT1', ELEM.STRING, ['batch']),
    ],
    outputs: [
      tensorValue('OUTPUT0', ELEM.INT32, ['batch', 4]),
      tensorValue('OUTPUT1', ELEM.STRING, ['batch']),
    ],
    nodes: [
      node('Identity', ['INPUT0'], ['OUTPUT0'], 'a'),
      node('Identity', ['INPUT1'], ['OUTPUT1'], 'b'),
    ],
  });
  await writeFile(path.join(dir, '1', 'model.onnx'), bytes);
  const { config } = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    backendConfig: parseBackendConfig(['onnxruntime,default-max-batch-size=8']),
  });
  assert.equal(config.max_batch_size, 8);
  assert.deepEqual(
    config.input.map((t) => [t.name, t.data_type, t.dims, t.reshape]),
    [
      ['INPUT0', 'TYPE_INT32', [4], undefined],
      ['INPUT1', 'TYPE_STRING', [1], { shape: [] }],
    ],
  );
  assert.deepEqual(
    config.output.map((t) => [t.name, t.data_type, t.dims, t.reshape]),
    [
      ['OUTPUT0', 'TYPE_INT32', [4], undefined],
      ['OUTPUT1', 'TYPE_STRING', [1], { shape: [] }],
    ],
  );
});
