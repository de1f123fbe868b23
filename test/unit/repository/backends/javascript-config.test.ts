// The config pipeline for `backend: "javascript"` models over real directories, then the JavaScript
// backend's reading of its settings: the model file it picks, what such a config must say itself,
// the execute and initialize timeout parameters, and that the model's own parameters are not read
// as ONNX Runtime settings.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModelConfig } from '../../../../src/config/load-model-config.js';
import { NO_THREAD_PARAMETERS } from '../../../../src/repository/backends/backend.js';
import { readJavascriptParameters } from '../../../../src/repository/backends/javascript/javascript-parameters.js';
import {
  loadAndBind,
  loadError,
  neverRead,
  tempRepository,
} from '../../config/model-dir-helpers.js';
import { backendConfigRules } from '../../../../src/repository/backends/registry.js';

const repo = tempRepository('infernode-js-config-');

const IO = `
input [ { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]
`;

void test('a javascript model defaults to model.js, one instance, a 30 s execute and a 60 s initialize timeout', async () => {
  const dir = await repo.model('js_plain', {
    'config.pbtxt': `backend: "javascript"\nmax_batch_size: 4\n${IO}`,
    '1/model.js': 'export function execute() {}',
  });
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    readModelIO: neverRead,
  });
  assert.equal(loaded.config.default_model_filename, 'model.js');
  assert.equal(loaded.config.platform, '');
  assert.deepEqual(
    loaded.config.instance_group.map((g) => [g.kind, g.count]),
    [['KIND_CPU', 1]],
  );
  assert.deepEqual(readJavascriptParameters(loaded.config), {
    executeTimeoutMs: 30_000,
    initializeTimeoutMs: 60_000,
    decoupled: false,
  });
});

void test('model.mjs is picked when that is the file the versions hold', async () => {
  const dir = await repo.model('js_mjs', {
    'config.pbtxt': `backend: "javascript"\n${IO}`,
    '2/model.mjs': 'export function execute() {}',
  });
  const loaded = await loadModelConfig(dir, {
    backends: backendConfigRules(),
    readModelIO: neverRead,
  });
  assert.equal(loaded.config.default_model_filename, 'model.mjs');
});

void test("the model's parameters are its own; the two timeouts are read once", async () => {
  const dir = await repo.model('js_params', {
    'config.pbtxt':
      `backend: "javascript"\n${IO}\n` +
      `parameters { key: "execute_timeout_ms" value: { string_value: "250" } }\n` +
      `parameters { key: "initialize_timeout_ms" value: { string_value: "1500" } }\n` +
      `parameters { key: "intra_op_thread_count" value: { string_value: "not a number" } }`,
    '1/model.js': '',
  });
  const { loaded, bound, warnings } = await loadAndBind(dir, { readModelIO: neverRead });
  assert.deepEqual(readJavascriptParameters(loaded.config), {
    executeTimeoutMs: 250,
    initializeTimeoutMs: 1500,
    decoupled: false,
  });
  // No ORT reader sees them: the model asks the thread budget for nothing.
  assert.equal(bound.threadParameters, NO_THREAD_PARAMETERS);
  assert.deepEqual(
    warnings.filter((w) => /parameter/.test(w)),
    [],
  );
  assert.equal(loaded.config.parameters.intra_op_thread_count?.string_value, 'not a number');
});

const REFUSED: ReadonlyArray<[string, string, RegExp]> = [
  [
    'no inputs or outputs',
    `backend: "javascript"`,
    /a backend "javascript" config must list its inputs and outputs \(got 0 input\(s\) and 0 output\(s\)\)/,
  ],
  [
    'a GPU group',
    `backend: "javascript"\n${IO}\ninstance_group [ { kind: KIND_GPU gpus: [ 0 ] } ]`,
    /instance_group\[0\] has kind KIND_GPU; a backend "javascript" model runs on worker threads/,
  ],
  [
    'a platform',
    `backend: "javascript"\nplatform: "onnxruntime_onnx"\n${IO}`,
    /unexpected 'platform' and 'backend' pair, got:onnxruntime_onnx, javascript/,
  ],
  [
    'a zero timeout',
    `backend: "javascript"\n${IO}\nparameters { key: "execute_timeout_ms" value: { string_value: "0" } }`,
    /parameter "execute_timeout_ms": expected an integer >= 1, got "0"/,
  ],
  [
    'a timeout that is not a number',
    `backend: "javascript"\n${IO}\nparameters { key: "execute_timeout_ms" value: { string_value: "soon" } }`,
    /parameter "execute_timeout_ms": expected an integer >= 0, got "soon"/,
  ],
  [
    'a zero initialize timeout',
    `backend: "javascript"\n${IO}\nparameters { key: "initialize_timeout_ms" value: { string_value: "0" } }`,
    /parameter "initialize_timeout_ms": expected an integer >= 1, got "0"/,
  ],
];

for (const [what, config, message] of REFUSED) {
  void test(`a javascript config with ${what} is CONFIG_INVALID`, async () => {
    const name = `js_bad_${what.replace(/\W+/g, '_')}`;
    const dir = await repo.model(name, { 'config.pbtxt': config, '1/model.js': '' });
    const e = await loadError(dir, { readModelIO: neverRead, availableGpus: [0] });
    assert.equal(e.code, 'CONFIG_INVALID');
    assert.match(e.message, message);
  });
}
