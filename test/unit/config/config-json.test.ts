// /v2/models/{m}/config JSON: protobuf's JSON mapping as Triton prints it (all primitive fields, enum
// names, declaration order, 64-bit integers as numbers) and the plain protobuf mapping on request.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import { toConfigJson } from '../../../src/config/config-json.js';
import type { ModelConfig } from '../../../src/config/model-config.js';
import { normalizeModelConfig } from '../../../src/config/normalize.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';

function config(text: string): ModelConfig {
  const raw = autocompleteCoreFields(parseModelConfig(text, 'c'), {
    modelName: 'm',
    versionHasOnnxModel: true,
  });
  return normalizeModelConfig(raw, { backends: backendConfigRules() }).config;
}

const TEXT = `max_batch_size: 8
input { name: "x" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, -1, -1 ] }
output { name: "y" data_type: TYPE_INT64 dims: [ 1 ] reshape { shape: [ ] } label_filename: "l.txt" }
dynamic_batching { max_queue_delay_microseconds: 100 priority_levels: 2 default_priority_level: 1
  default_queue_policy { default_timeout_microseconds: 5 }
  priority_queue_policy { key: 2 value { max_queue_size: 3 } } }
version_policy { specific { versions: [ 1, 2 ] } }
parameters { key: "execution_mode" value { string_value: "0" } }
model_warmup { name: "w" batch_size: 1 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 3, 4, 4 ] zero_data: true } } }`;

void test('Triton form: every primitive field, enum names, declaration order, int64 as numbers', () => {
  const json = toConfigJson(config(TEXT));
  assert.deepEqual(Object.keys(json), [
    'name',
    'platform',
    'backend',
    'runtime',
    'version_policy',
    'max_batch_size',
    'input',
    'output',
    'batch_input',
    'batch_output',
    'optimization',
    'dynamic_batching',
    'instance_group',
    'default_model_filename',
    'cc_model_filenames',
    'metric_tags',
    'parameters',
    'model_warmup',
    'model_transaction_policy',
  ]);
  assert.deepEqual(json, {
    name: 'm',
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    runtime: '',
    version_policy: { specific: { versions: [1, 2] } },
    max_batch_size: 8,
    input: [
      {
        name: 'x',
        data_type: 'TYPE_FP32',
        format: 'FORMAT_NCHW',
        dims: [3, -1, -1],
        is_shape_tensor: false,
        allow_ragged_batch: false,
        optional: false,
        is_non_linear_format_io: false,
      },
    ],
    output: [
      {
        name: 'y',
        data_type: 'TYPE_INT64',
        dims: [1],
        reshape: { shape: [] },
        label_filename: 'l.txt',
        is_shape_tensor: false,
        is_non_linear_format_io: false,
      },
    ],
    batch_input: [],
    batch_output: [],
    optimization: {
      priority: 'PRIORITY_DEFAULT',
      input_pinned_memory: { enable: true },
      output_pinned_memory: { enable: true },
      gather_kernel_buffer_threshold: 0,
      eager_batching: false,
    },
    dynamic_batching: {
      preferred_batch_size: [8],
      max_queue_delay_microseconds: 100,
      preserve_ordering: false,
      priority_levels: 2,
      default_priority_level: 1,
      default_queue_policy: {
        timeout_action: 'REJECT',
        default_timeout_microseconds: 5,
        allow_timeout_override: false,
        max_queue_size: 0,
      },
      priority_queue_policy: {
        '2': {
          timeout_action: 'REJECT',
          default_timeout_microseconds: 0,
          allow_timeout_override: false,
          max_queue_size: 3,
        },
      },
    },
    instance_group: [
      {
        name: 'm',
        kind: 'KIND_CPU',
        count: 2,
        gpus: [],
        secondary_devices: [],
        profile: [],
        passive: false,
        host_policy: '',
      },
    ],
    default_model_filename: 'model.onnx',
    cc_model_filenames: {},
    metric_tags: {},
    parameters: { execution_mode: { string_value: '0' } },
    model_warmup: [
      {
        name: 'w',
        batch_size: 1,
        inputs: { x: { data_type: 'TYPE_FP32', dims: [3, 4, 4], zero_data: true } },
        count: 1,
      },
    ],
    model_transaction_policy: { decoupled: false },
  });
});

/** The value at `path` inside parsed JSON (a test probe; undefined when the path is missing). */
function at(json: unknown, ...path: (string | number)[]): unknown {
  let v = json;
  for (const k of path)
    v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

void test('protobuf form: exactly the 64-bit fields become strings', () => {
  const json = toConfigJson(config(TEXT), { int64: 'string' });
  assert.deepEqual(at(json, 'input', 0, 'dims'), ['3', '-1', '-1']);
  assert.deepEqual(at(json, 'output', 0, 'reshape'), { shape: [] });
  assert.deepEqual(at(json, 'version_policy'), { specific: { versions: ['1', '2'] } });
  assert.equal(at(json, 'max_batch_size'), 8, 'int32 stays a number');
  assert.deepEqual(
    at(json, 'dynamic_batching', 'preferred_batch_size'),
    [8],
    'int32 list stays numbers',
  );
  assert.equal(at(json, 'dynamic_batching', 'max_queue_delay_microseconds'), '100');
  assert.equal(at(json, 'dynamic_batching', 'priority_levels'), '2');
  assert.equal(at(json, 'dynamic_batching', 'default_priority_level'), '1');
  assert.equal(
    at(json, 'dynamic_batching', 'default_queue_policy', 'default_timeout_microseconds'),
    '5',
  );
  assert.equal(
    at(json, 'dynamic_batching', 'default_queue_policy', 'max_queue_size'),
    0,
    'uint32 stays a number',
  );
  assert.equal(
    at(json, 'dynamic_batching', 'priority_queue_policy', '2', 'default_timeout_microseconds'),
    '0',
  );
  assert.deepEqual(at(json, 'model_warmup', 0, 'inputs', 'x', 'dims'), ['3', '4', '4']);
  assert.equal(at(json, 'model_warmup', 0, 'batch_size'), 1);
  assert.deepEqual(at(json, 'instance_group', 0, 'gpus'), [], 'gpus are int32');
});

void test('oneof members and unset messages are omitted; the result is JSON-serializable data', () => {
  const json = toConfigJson(
    config('input { name: "x" data_type: TYPE_FP32 dims: [1] } version_policy { all { } }'),
  );
  assert.deepEqual(json.version_policy, { all: {} });
  assert.equal('dynamic_batching' in json, false);
  assert.equal('response_cache' in json, false);
  assert.deepEqual(JSON.parse(JSON.stringify(json)), json);
});

void test('a frozen config prints the same twice', () => {
  const c = Object.freeze(config(TEXT));
  assert.deepEqual(toConfigJson(c), toConfigJson(c));
});
