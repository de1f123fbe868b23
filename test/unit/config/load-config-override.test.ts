// loadModelConfig with `configOverride` (the load API's `parameters.config`): the JSON replaces
// config.pbtxt and --model-config-name, and goes through the same pipeline: autocomplete, the name
// rule, checks, normalize, validate.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { loadModelConfig } from '../../../src/config/load-model-config.js';
import { loadError, neverRead, recorder, tempRepository } from './model-dir-helpers.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';

const repo = tempRepository('infernode-config-override-');

const IO = {
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [3] }],
  output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [3] }],
};
const override = (config: unknown) => ({ configOverride: { json: JSON.stringify(config) } });

void test('the override is used instead of config.pbtxt and --model-config-name', async () => {
  const dir = await repo.model('chosen', {
    'config.pbtxt': 'max_batch_size: 1 this is not read',
    'configs/h100.pbtxt': 'neither is this',
    '1/model.onnx': '',
  });
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    configName: 'h100',
    readModelIO: neverRead,
    ...override({ maxBatchSize: 6, ...IO, instance_group: [{ kind: 'KIND_CPU', count: '3' }] }),
  });
  assert.equal(loaded.configPath, undefined);
  assert.equal(loaded.config.name, 'chosen');
  assert.equal(loaded.config.max_batch_size, 6);
  assert.deepEqual(loaded.config.instance_group, [
    { name: 'chosen_0', kind: 'KIND_CPU', count: 3, gpus: [] },
  ]);
  assert.ok(Object.isFrozen(loaded.config));
});

void test('the name: missing or empty takes the directory name; any other must equal it', async () => {
  const dir = await repo.model('named', { '1/model.onnx': '' });
  for (const name of [undefined, '', 'named']) {
    const loaded = await loadModelConfig(dir, {
      backends: backendConfigRules(),
      readModelIO: neverRead,
      ...override({ ...(name !== undefined && { name }), ...IO }),
    });
    assert.equal(loaded.config.name, 'named');
  }
  const e = await loadError(dir, { readModelIO: neverRead, ...override({ name: 'other', ...IO }) });
  assert.equal(e.code, 'CONFIG_INVALID');
  assert.equal(
    e.message,
    "unexpected directory name 'named' for model 'other', directory name must equal model name",
  );
});

void test('an override without inputs and outputs is autocompleted from the model', async () => {
  const dir = await repo.model('completed', { '2/model.onnx': '' });
  const r = recorder();
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    readModelIO: r.read,
    ...override({ backend: 'onnxruntime', max_batch_size: 0 }),
  });
  assert.deepEqual(r.paths, [path.join(dir, '2', 'model.onnx')]);
  assert.equal(loaded.config.platform, 'onnxruntime_onnx');
  assert.equal(loaded.config.max_batch_size, 4);
  assert.deepEqual(loaded.config.dynamic_batching?.preferred_batch_size, [4]);
  assert.deepEqual(
    loaded.config.input.map((t) => [t.name, t.dims]),
    [['x', [3]]],
  );
  assert.match(loaded.warnings[0] ?? '', /^autofilled max_batch_size to 4 for model 'completed'/);
});

void test('--disable-auto-complete-config: the override stands in for the required config.pbtxt', async () => {
  const dir = await repo.model('strict', { '1/model.onnx': '' });
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    disableAutoComplete: true,
    readModelIO: neverRead,
    ...override({ input: IO.input }),
  });
  assert.equal(loaded.config.backend, 'onnxruntime', 'core fields are still filled');
  assert.deepEqual(loaded.config.output, []);
});

void test('errors: the JSON reader names `config JSON`; the later stages say what they say for the file', async () => {
  const dir = await repo.model('broken', { '1/model.onnx': '' });
  const syntax = await loadError(dir, override({ ...IO, max_batch: 8 }));
  assert.equal(syntax.code, 'CONFIG_SYNTAX');
  assert.equal(
    syntax.message,
    'config JSON: unknown field "max_batch" in ModelConfig (did you mean "max_batch_size"?)',
  );
  const notJson = await loadError(dir, { configOverride: { json: 'max_batch_size: 8' } });
  assert.equal(notJson.code, 'CONFIG_SYNTAX');
  assert.match(notJson.message, /^config JSON: not valid JSON: /);

  const invalid = await loadError(dir, {
    readModelIO: neverRead,
    ...override({ ...IO, optimization: { graph: { level: 5 } } }),
  });
  assert.equal(invalid.code, 'CONFIG_INVALID');
  assert.equal(invalid.message, 'optimization.graph.level: expected -1, 0, 1 or 2, got 5');
  const unsupported = await loadError(dir, {
    readModelIO: neverRead,
    ...override({ ...IO, sequence_batching: { iterative_sequence: true } }),
  });
  assert.equal(unsupported.code, 'UNSUPPORTED');
});
