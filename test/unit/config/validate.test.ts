// Validation, unsupported-feature and parameter rules on normalized configs: each broken rule fails
// with its code and a message naming what was expected and what arrived.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import { normalizeModelConfig } from '../../../src/config/normalize.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { validateModelConfig } from '../../../src/config/validate.js';
import { check, IO, rejects } from './pipeline-helpers.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';

void test('a complete valid config passes without warnings', () => {
  assert.deepEqual(
    check(`${IO} max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 2, 4 ] }
           parameters { key: "intra_op_thread_count" value { string_value: "2" } }
           parameters { key: "session.intra_op.allow_spinning" value { string_value: "0" } }
           model_warmup { name: "w" batch_size: 4 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 3 ] zero_data: true } } }`),
    [],
  );
});

void test('the name must equal the directory', () => {
  rejects(
    `name: "other" ${IO}`,
    'CONFIG_INVALID',
    "unexpected directory name 'm' for model 'other', directory name must equal model name",
  );
});

void test('only the onnxruntime and javascript backends are served', () => {
  rejects(
    `backend: "python" ${IO}`,
    'UNSUPPORTED',
    /model 'm' has backend "python" and platform "": infernode serves ONNX models \(backend "onnxruntime", platform "onnxruntime_onnx"\) and JavaScript models/,
  );
  rejects(
    `platform: "tensorrt_plan" ${IO}`,
    'UNSUPPORTED',
    /backend "" and platform "tensorrt_plan"/,
  );
  rejects(
    `backend: "onnxruntime" platform: "tensorflow_savedmodel" ${IO}`,
    'CONFIG_INVALID',
    "unexpected 'platform' and 'backend' pair, got:tensorflow_savedmodel, onnxruntime",
  );
  assert.throws(() => {
    const raw = autocompleteCoreFields(parseModelConfig(IO, 'c'), {
      modelName: 'm',
      versionHasOnnxModel: false,
    });
    const backends = backendConfigRules();
    validateModelConfig(normalizeModelConfig(raw, { backends }).config, {
      modelName: 'm',
      backends,
    });
  }, /must specify 'platform' or 'backend' for 'm'/);
});

void test('max_batch_size and version policy ranges', () => {
  rejects(
    `${IO} max_batch_size: -1`,
    'CONFIG_INVALID',
    "'max_batch_size' must be non-negative value for m, got -1",
  );
  rejects(
    `${IO} version_policy { latest { num_versions: 0 } }`,
    'CONFIG_INVALID',
    'version_policy latest.num_versions must be >= 1 for m, got 0',
  );
  rejects(
    `${IO} version_policy { specific { } }`,
    'CONFIG_INVALID',
    /specific.versions must list version numbers >= 0 for m, got \[\]/,
  );
  rejects(
    `${IO} version_policy { specific { versions: [ 1, -2 ] } }`,
    'CONFIG_INVALID',
    /got \[1, -2\]/,
  );
});

void test('tensor rules: names, dims, duplicates, formats, types', () => {
  rejects(
    'input { data_type: TYPE_FP32 dims: [ 1 ] }',
    'CONFIG_INVALID',
    "model input must specify 'name' for m",
  );
  rejects(
    'input { name: "x" data_type: TYPE_FP32 }',
    'CONFIG_INVALID',
    "model input 'x' must specify 'dims' for m",
  );
  rejects(
    'input { name: "x" data_type: TYPE_FP32 dims: [ 2, 0 ] }',
    'CONFIG_INVALID',
    "model input 'x' dimension must be integer >= 1, or -1 to indicate a variable-size dimension for m, got dims [2, 0]",
  );
  rejects(
    'input { name: "x" data_type: TYPE_FP32 dims: [ -2 ] }',
    'CONFIG_INVALID',
    /got dims \[-2\]/,
  );
  rejects(
    `${IO} output { name: "y" data_type: TYPE_INT8 dims: [ 1 ] }`,
    'CONFIG_INVALID',
    "model output 'y' is specified more than once for m",
  );
  rejects(
    'input { name: "x" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 224 ] }',
    'CONFIG_INVALID',
    "model input NHWC/NCHW require 3 dims for m: model input 'x' has dims [3, 224]",
  );
  rejects(
    'input { name: "x" data_type: TYPE_BF16 dims: [ 1 ] }',
    'UNSUPPORTED',
    /TYPE_BF16, which onnxruntime-node cannot run/,
  );
  rejects(
    'max_batch_size: 2 input { name: "x" data_type: TYPE_FP32 dims: [ 1 ] optional: true }',
    'CONFIG_INVALID',
    "optional model input 'x' is not supported for models that support batching (max_batch_size 2) for m",
  );
  // The same name as an input and an output is allowed (a graph input may also be an output).
  assert.deepEqual(
    check(
      'input { name: "t" data_type: TYPE_FP32 dims: [1] } output { name: "t" data_type: TYPE_FP32 dims: [1] }',
    ),
    [],
  );
});

void test('reshape element counts, chunk by chunk around variable dims', () => {
  const io = (dims: string, shape: string, mbs = 0): string =>
    `max_batch_size: ${mbs} input { name: "x" data_type: TYPE_FP32 dims: [ ${dims} ] reshape { shape: [ ${shape} ] } }`;
  assert.deepEqual(check(io('2, 4, -1, 6', '8, -1, 1, 6')), []);
  assert.deepEqual(check(io('1', '', 4)), [], 'empty reshape of a [1] tensor when batching');
  rejects(
    io('2, 3', '5'),
    'CONFIG_INVALID',
    "model input 'x' has different size for dims and reshape for m: dims [2, 3], reshape [5]",
  );
  rejects(io('2, -1', '-1, 2'), 'CONFIG_INVALID', /has different size for dims and reshape/);
  rejects(
    io('-1, 2', '2'),
    'CONFIG_INVALID',
    /has different number of variable-size dimensions for dims and reshape/,
  );
  rejects(
    io('1', ''),
    'CONFIG_INVALID',
    /cannot have empty reshape for non-batching model as scalar tensors are not supported/,
  );
  rejects(io('2', '2, 0'), 'CONFIG_INVALID', /reshape dimensions must be integer >= 1/);
});

void test('dynamic batching rules', () => {
  rejects(
    `${IO} max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 8 ] }`,
    'CONFIG_INVALID',
    'dynamic batching preferred size must be <= max batch size for m, got 8 > 4',
  );
  rejects(
    `${IO} max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 0 ] }`,
    'CONFIG_INVALID',
    /preferred size must be positive for m, got 0/,
  );
  rejects(
    `${IO} dynamic_batching { priority_levels: 2 }`,
    'CONFIG_INVALID',
    'default priority level must be in range [1, 2] for m, got 0',
  );
  rejects(
    `${IO} dynamic_batching { priority_levels: 2 default_priority_level: 1 priority_queue_policy { key: 3 value { } } }`,
    'CONFIG_INVALID',
    'priority queue policy must have priority level in range [1, 2] for m, got 3',
  );
  rejects(
    `${IO} dynamic_batching { preserve_ordering: true priority_levels: 2 default_priority_level: 1 }`,
    'CONFIG_INVALID',
    "Only one priority level is allowed when 'preserve_ordering' is true for m",
  );
  rejects(
    `${IO} dynamic_batching { preserve_ordering: true default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 5 } }`,
    'CONFIG_INVALID',
    "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for m",
  );
});

void test('instance group rules', () => {
  rejects(
    `${IO} instance_group { kind: KIND_GPU }`,
    'CONFIG_INVALID',
    'instance group m_0 of model m has kind KIND_GPU but no GPUs are available',
  );
  rejects(
    `${IO} instance_group { kind: KIND_GPU gpus: [ 3 ] }`,
    'CONFIG_INVALID',
    'instance group m_0 of model m specifies invalid or unsupported gpu id 3; available GPUs are: [0]',
    [0],
  );
  rejects(
    `${IO} instance_group { kind: KIND_CPU gpus: [ 0 ] }`,
    'CONFIG_INVALID',
    'instance group m_0 of model m has kind KIND_CPU but specifies one or more GPUs',
  );
  rejects(
    `${IO} instance_group { kind: KIND_MODEL }`,
    'UNSUPPORTED',
    /has kind KIND_MODEL, which the onnxruntime backend does not support/,
  );
  assert.deepEqual(check(`${IO} instance_group { kind: KIND_GPU }`, [0]), []);
});

void test('accelerators must be ones the ORT backend knows; other graph levels fail', () => {
  rejects(
    `${IO} optimization { execution_accelerators { gpu_execution_accelerator [ { name: "openvino" } ] } }`,
    'CONFIG_INVALID',
    "unknown Execution Accelerator 'openvino' is requested for m; expected one of tensorrt, cuda, webgpu",
  );
  rejects(
    `${IO} optimization { execution_accelerators { cpu_execution_accelerator [ { name: "dnnl" } ] } }`,
    'CONFIG_INVALID',
    /'dnnl'.*expected one of openvino/,
  );
  // Triton's backend treats them as "all"; infernode always refused them when the session plan was
  // built, and now refuses them once, when the config is read.
  rejects(
    `${IO} optimization { graph { level: 7 } }`,
    'CONFIG_INVALID',
    'optimization.graph.level: expected -1, 0, 1 or 2, got 7',
  );
});

void test('warmup samples must match the model inputs', () => {
  const w = (inner: string, extra = ''): string =>
    `${IO} max_batch_size: 2 ${extra} model_warmup { name: "w" ${inner} }`;
  const x = (value: string): string => `inputs { key: "x" value { ${value} } }`;
  rejects(
    w(`batch_size: 3 ${x('data_type: TYPE_FP32 dims: [3] zero_data: true')}`),
    'CONFIG_INVALID',
    "warmup sample 'w' of model m has batch_size 3, above the model's limit of 2",
  );
  rejects(
    w(`batch_size: 1 ${x('data_type: TYPE_INT32 dims: [3] zero_data: true')}`),
    'CONFIG_INVALID',
    "warmup sample 'w' of model m: input 'x' is TYPE_INT32, expected TYPE_FP32",
  );
  rejects(
    w(`batch_size: 1 ${x('data_type: TYPE_FP32 dims: [4] zero_data: true')}`),
    'CONFIG_INVALID',
    /needs fixed dims matching \[3\] \(without the batch dim\), got \[4\]/,
  );
  rejects(
    w(`batch_size: 1 ${x('data_type: TYPE_FP32 dims: [3]')}`),
    'CONFIG_INVALID',
    /expects input 'x' to have input_data_type set/,
  );
  rejects(
    w(`batch_size: 1 ${x('data_type: TYPE_FP32 dims: [3] input_data_file: "../../etc/passwd"')}`),
    'CONFIG_INVALID',
    /input_data_file of model m must be a path inside the model directory, got "..\/..\/etc\/passwd"/,
  );
  rejects(
    w('batch_size: 1 inputs { key: "z" value { data_type: TYPE_FP32 dims: [1] zero_data: true } }'),
    'CONFIG_INVALID',
    /sets input 'z', which the model does not have; inputs are: x/,
  );
  rejects(
    w('batch_size: 1'),
    'CONFIG_INVALID',
    "warmup sample 'w' of model m does not set required input 'x'",
  );
  const variable =
    'input { name: "v" data_type: TYPE_FP32 dims: [ -1 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 1 ] }';
  assert.deepEqual(
    check(
      `${variable} model_warmup { name: "w" batch_size: 1 inputs { key: "v" value { data_type: TYPE_FP32 dims: [ 5 ] random_data: true } } }`,
    ),
    [],
  );
  rejects(
    `${variable} model_warmup { name: "w" batch_size: 1 inputs { key: "v" value { data_type: TYPE_FP32 dims: [ -1 ] zero_data: true } } }`,
    'CONFIG_INVALID',
    /got \[-1\]/,
  );
});

void test('files named in the config must stay in the model directory', () => {
  rejects(
    `${IO} backend: "onnxruntime" default_model_filename: "/abs/model.onnx"`,
    'CONFIG_INVALID',
    /default_model_filename of model m must be a path inside the model directory/,
  );
  rejects(
    'input { name: "x" data_type: TYPE_FP32 dims: [1] } output { name: "y" data_type: TYPE_FP32 dims: [1] label_filename: "a/../../l.txt" }',
    'CONFIG_INVALID',
    /label_filename of model m must be a path inside/,
  );
});
