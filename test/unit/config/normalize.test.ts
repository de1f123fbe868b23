// Normalization: every default Triton fills in, made explicit (core NormalizeModelConfig and
// NormalizeInstanceGroup, proto defaults).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import type { ModelConfig } from '../../../src/config/model-config.js';
import { normalizeModelConfig } from '../../../src/config/normalize.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { InferenceServerError } from '../../../src/errors.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';

const IO =
  'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }';

function normalize(
  text: string,
  availableGpus: number[] = [],
): { config: ModelConfig; warnings: readonly string[] } {
  const raw = autocompleteCoreFields(parseModelConfig(text, 'config.pbtxt'), {
    modelName: 'm',
    versionHasOnnxModel: true,
  });
  return normalizeModelConfig(raw, { backends: backendConfigRules(), availableGpus });
}

void test('a minimal config gets every default', () => {
  const { config, warnings } = normalize(IO);
  assert.deepEqual(warnings, []);
  assert.deepEqual(config, {
    name: 'm',
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    version_policy: { latest: { num_versions: 1 } },
    max_batch_size: 0,
    input: [
      {
        name: 'x',
        data_type: 'TYPE_FP32',
        format: 'FORMAT_NONE',
        dims: [3],
        allow_ragged_batch: false,
        optional: false,
      },
    ],
    output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [3] }],
    instance_group: [{ name: 'm', kind: 'KIND_CPU', count: 2, gpus: [] }],
    default_model_filename: 'model.onnx',
    optimization: { input_pinned_memory: { enable: true }, output_pinned_memory: { enable: true } },
    model_warmup: [],
    model_transaction_policy: { decoupled: false },
    parameters: {},
  });
});

void test('model_transaction_policy is kept, decoupled false unless the config says true', () => {
  assert.deepEqual(normalize(IO).config.model_transaction_policy, { decoupled: false });
  const { config } = normalize(`${IO} model_transaction_policy { decoupled: true }`);
  assert.deepEqual(config.model_transaction_policy, { decoupled: true });
});

void test('instance groups: names, KIND_AUTO resolution and default counts follow Triton', () => {
  const { config } = normalize(
    `${IO} instance_group [ { }, { name: "named" kind: KIND_CPU count: 3 }, { kind: KIND_AUTO count: 0 }, { kind: KIND_CPU count: -4 } ]`,
  );
  assert.deepEqual(config.instance_group, [
    { name: 'm_0', kind: 'KIND_CPU', count: 2, gpus: [] },
    { name: 'named', kind: 'KIND_CPU', count: 3, gpus: [] },
    { name: 'm_2', kind: 'KIND_CPU', count: 2, gpus: [] },
    { name: 'm_3', kind: 'KIND_CPU', count: 2, gpus: [] },
  ]);
});

void test('with GPUs available: KIND_AUTO becomes KIND_GPU on all GPUs with count 1, unless a listed GPU is missing', () => {
  const { config } = normalize(
    `${IO} instance_group [ { }, { kind: KIND_AUTO gpus: [ 1 ] }, { kind: KIND_AUTO gpus: [ 7 ] }, { kind: KIND_GPU count: 2 } ]`,
    [1, 0],
  );
  assert.deepEqual(config.instance_group, [
    { name: 'm_0', kind: 'KIND_GPU', count: 1, gpus: [0, 1] },
    { name: 'm_1', kind: 'KIND_GPU', count: 1, gpus: [1] },
    { name: 'm_2', kind: 'KIND_CPU', count: 2, gpus: [7] },
    { name: 'm_3', kind: 'KIND_GPU', count: 2, gpus: [0, 1] },
  ]);
  const none = normalize(IO, [0]);
  assert.deepEqual(none.config.instance_group, [
    { name: 'm', kind: 'KIND_GPU', count: 1, gpus: [0] },
  ]);
});

void test('dynamic_batching gets proto defaults and preferred_batch_size = [max_batch_size]', () => {
  const { config } = normalize(`${IO} max_batch_size: 8 dynamic_batching { }`);
  assert.deepEqual(config.dynamic_batching, {
    preferred_batch_size: [8],
    max_queue_delay_microseconds: 0,
    preserve_ordering: false,
    priority_levels: 0,
    default_priority_level: 0,
    priority_queue_policy: {},
  });
  const queued = normalize(
    `${IO} max_batch_size: 8 dynamic_batching { preferred_batch_size: [ 2, 4 ] default_queue_policy { max_queue_size: 5 }
     priority_levels: 2 default_priority_level: 1 priority_queue_policy { key: 2 value { timeout_action: DELAY } } }`,
  ).config.dynamic_batching;
  assert.deepEqual(queued?.preferred_batch_size, [2, 4]);
  assert.deepEqual(queued?.default_queue_policy, {
    timeout_action: 'REJECT',
    default_timeout_microseconds: 0,
    allow_timeout_override: false,
    max_queue_size: 5,
  });
  assert.deepEqual(queued?.priority_queue_policy, {
    '2': {
      timeout_action: 'DELAY',
      default_timeout_microseconds: 0,
      allow_timeout_override: false,
      max_queue_size: 0,
    },
  });
  const unbatched = normalize(`${IO} dynamic_batching { }`).config.dynamic_batching;
  assert.deepEqual(
    unbatched?.preferred_batch_size,
    [],
    'no preferred size when max_batch_size is 0',
  );
});

void test('version policies: absent -> latest 1; an empty message -> all (as Triton loads it)', () => {
  assert.deepEqual(normalize(`${IO} version_policy { latest { } }`).config.version_policy, {
    latest: { num_versions: 0 },
  });
  assert.deepEqual(normalize(`${IO} version_policy { }`).config.version_policy, { all: {} });
  assert.deepEqual(
    normalize(`${IO} version_policy { specific { versions: [ 2, 5 ] } }`).config.version_policy,
    {
      specific: { versions: [2, 5] },
    },
  );
});

void test('optimization keeps graph level and accelerators; pinned memory defaults only when unset', () => {
  const { config } = normalize(
    `${IO} optimization { graph { } input_pinned_memory { } execution_accelerators { gpu_execution_accelerator [ { name: "tensorrt" parameters { key: "precision_mode" value: "FP16" } } ] } }`,
  );
  assert.deepEqual(config.optimization, {
    graph: { level: 0 },
    execution_accelerators: {
      gpu_execution_accelerator: [{ name: 'tensorrt', parameters: { precision_mode: 'FP16' } }],
      cpu_execution_accelerator: [],
    },
    input_pinned_memory: { enable: false },
    output_pinned_memory: { enable: true },
  });
});

void test('warmup: count 0 means once, batch_size 0 samples are dropped with a warning', () => {
  const { config, warnings } = normalize(
    `${IO} model_warmup [ { name: "a" batch_size: 1 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 3 ] random_data: true } } },
                          { name: "skip" batch_size: 0 count: 5 } ]`,
  );
  assert.deepEqual(config.model_warmup, [
    {
      name: 'a',
      batch_size: 1,
      count: 1,
      inputs: { x: { data_type: 'TYPE_FP32', dims: [3], random_data: true } },
    },
  ]);
  assert.deepEqual(warnings, ["model 'm': warmup sample 'skip' has batch_size 0 and is skipped"]);
});

void test('parameters, labels, reshape and metric tags are carried; "__proto__" keys stay data', () => {
  const { config } = normalize(
    `input { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape { shape: [ 2, 2 ] } optional: true }
     output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] label_filename: "labels.txt" }
     parameters { key: "__proto__" value { string_value: "p" } } parameters { key: "k" value { } }
     metric_tags { key: "team" value: "a" }`,
  );
  assert.deepEqual(config.input[0]?.reshape, { shape: [2, 2] });
  assert.equal(config.input[0]?.optional, true);
  assert.equal(config.output[0]?.label_filename, 'labels.txt');
  assert.deepEqual(Object.keys(config.parameters), ['__proto__', 'k']);
  assert.deepEqual(config.parameters.k, { string_value: '' });
  assert.equal(Object.getPrototypeOf(config.parameters), Object.prototype);
  assert.deepEqual(config.metric_tags, { team: 'a' });
});

void test('a tensor without data_type cannot be normalized', () => {
  assert.throws(
    () => normalize('input { name: "x" dims: [ 1 ] }'),
    (e: unknown) =>
      e instanceof InferenceServerError &&
      e.code === 'CONFIG_INVALID' &&
      e.message === "model input 'x' must specify 'data_type' for m",
  );
  assert.throws(
    () =>
      normalize(
        `${IO} model_warmup { name: "w" batch_size: 1 inputs { key: "x" value { dims: [ 3 ] zero_data: true } } }`,
      ),
    /warmup sample 'w' input 'x' must specify 'data_type' for m/,
  );
});
