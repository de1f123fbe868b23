// parseModelConfigJson: protobuf's JSON mapping of ModelConfig (the load API's `parameters.config`)
// read into the same RawModelConfig as config.pbtxt, and a CONFIG_SYNTAX error naming the field path
// for each way a document can be wrong.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { parseModelConfigJson } from '../../../src/config/parse-model-config-json.js';
import { MAX_JSON_DEPTH, parseJsonProto } from '../../../src/config/pbtxt/json-parser.js';
import type { ProtoSchema } from '../../../src/config/pbtxt/schema.js';
import { InferenceServerError } from '../../../src/errors.js';

const parse = (value: unknown) => parseModelConfigJson(JSON.stringify(value), 'config JSON');

function rejects(text: string, message: string | RegExp): void {
  assert.throws(
    () => parseModelConfigJson(text, 'config JSON'),
    (e: unknown) => {
      assert.ok(e instanceof InferenceServerError, String(e));
      assert.equal(e.code, 'CONFIG_SYNTAX', e.message);
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
  );
}
const rejectsValue = (value: unknown, message: string | RegExp) =>
  rejects(JSON.stringify(value), message);

const DATA_TYPES =
  'TYPE_INVALID, TYPE_BOOL, TYPE_UINT8, TYPE_UINT16, TYPE_UINT32, TYPE_UINT64, TYPE_INT8, ' +
  'TYPE_INT16, TYPE_INT32, TYPE_INT64, TYPE_FP16, TYPE_FP32, TYPE_FP64, TYPE_STRING, TYPE_BF16';

void test('the same config as pbtxt and as JSON parses to the same RawModelConfig', () => {
  const pbtxt = `name: "m" platform: "onnxruntime_onnx" max_batch_size: 8
    input { name: "x" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, -1 ] reshape { shape: [ 3 ] } }
    output { name: "y" data_type: TYPE_INT64 dims: [ 1 ] label_filename: "l.txt" }
    instance_group { name: "g" kind: KIND_CPU count: 2 }
    dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100
      default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 5 }
      priority_levels: 2 priority_queue_policy { key: 1 value { max_queue_size: 3 } } }
    version_policy { specific { versions: [ 1, 3 ] } }
    parameters { key: "execution_mode" value { string_value: "1" } }
    model_warmup { name: "w" batch_size: 2 count: 3
      inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 3, 1 ] random_data: true } } }
    optimization { graph { level: -1 } input_pinned_memory { enable: false } }`;
  const json = {
    name: 'm',
    platform: 'onnxruntime_onnx',
    max_batch_size: 8,
    input: [
      {
        name: 'x',
        data_type: 'TYPE_FP32',
        format: 'FORMAT_NCHW',
        dims: ['3', '-1'],
        reshape: { shape: [3] },
      },
    ],
    output: [{ name: 'y', data_type: 'TYPE_INT64', dims: [1], label_filename: 'l.txt' }],
    instance_group: [{ name: 'g', kind: 'KIND_CPU', count: 2 }],
    dynamic_batching: {
      preferred_batch_size: [4, 8],
      max_queue_delay_microseconds: '100',
      default_queue_policy: { timeout_action: 'DELAY', default_timeout_microseconds: 5 },
      priority_levels: 2,
      priority_queue_policy: { '1': { max_queue_size: 3 } },
    },
    version_policy: { specific: { versions: ['1', 3] } },
    parameters: { execution_mode: { string_value: '1' } },
    model_warmup: [
      {
        name: 'w',
        batch_size: 2,
        count: 3,
        inputs: { x: { data_type: 'TYPE_FP32', dims: [3, 1], random_data: true } },
      },
    ],
    optimization: { graph: { level: -1 }, input_pinned_memory: { enable: false } },
  };
  assert.deepStrictEqual(parse(json), parseModelConfig(pbtxt, 'config.pbtxt'));
});

void test('field names: proto names and lowerCamelCase JSON names, at every level', () => {
  const camel = parse({
    maxBatchSize: 4,
    input: [{ name: 'x', dataType: 'TYPE_FP32', dims: [2], allowRaggedBatch: true }],
    instanceGroup: [{ kind: 'KIND_CPU', count: 1 }],
    dynamicBatching: {
      maxQueueDelayMicroseconds: '50',
      preferredBatchSize: [2],
      defaultQueuePolicy: { timeoutAction: 'REJECT', maxQueueSize: 1 },
      priorityQueuePolicy: { '2': { allowTimeoutOverride: true } },
    },
    versionPolicy: { latest: { numVersions: 2 } },
    parameters: { k: { stringValue: 'v' } },
    modelWarmup: [{ batchSize: 1, inputs: { x: { dataType: 'TYPE_FP32', zeroData: true } } }],
    defaultModelFilename: 'model.onnx',
  });
  assert.deepStrictEqual(camel, {
    max_batch_size: 4,
    input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [2], allow_ragged_batch: true }],
    instance_group: [{ kind: 'KIND_CPU', count: 1 }],
    dynamic_batching: {
      max_queue_delay_microseconds: 50,
      preferred_batch_size: [2],
      default_queue_policy: { timeout_action: 'REJECT', max_queue_size: 1 },
      priority_queue_policy: { '2': { allow_timeout_override: true } },
    },
    version_policy: { latest: { num_versions: 2 } },
    parameters: { k: { string_value: 'v' } },
    model_warmup: [{ batch_size: 1, inputs: { x: { data_type: 'TYPE_FP32', zero_data: true } } }],
    default_model_filename: 'model.onnx',
  });
  // Both spellings of one field in one object is the field set twice.
  rejectsValue(
    { max_batch_size: 1, maxBatchSize: 2 },
    'config JSON: "max_batch_size" and "maxBatchSize" both set field max_batch_size',
  );
  rejectsValue(
    { input: [{ data_type: 'TYPE_FP32', dataType: 'TYPE_FP32' }] },
    'config JSON: input[0]: "data_type" and "dataType" both set field data_type',
  );
});

void test('int64 (and every integer type) as a number or a string', () => {
  assert.deepStrictEqual(
    parse({
      max_batch_size: '8',
      input: [{ name: 'x', dims: ['-1', 16, '0'], reshape: { shape: ['16'] } }],
      instance_group: [{ count: '2', gpus: ['0', 1] }],
      dynamic_batching: { max_queue_delay_microseconds: '9007199254740991', priority_levels: 3 },
    }),
    {
      max_batch_size: 8,
      input: [{ name: 'x', dims: [-1, 16, 0], reshape: { shape: [16] } }],
      instance_group: [{ count: 2, gpus: [0, 1] }],
      dynamic_batching: { max_queue_delay_microseconds: 9007199254740991, priority_levels: 3 },
    },
  );
  // protobuf also reads an integral number written with an exponent or a fraction.
  assert.deepStrictEqual(parse({ max_batch_size: '1e2', input: [{ dims: [2.0, '3.0'] }] }), {
    max_batch_size: 100,
    input: [{ dims: [2, 3] }],
  });
});

void test('enums: names, names in any case (case_insensitive_enum_parsing), and numbers', () => {
  assert.deepStrictEqual(
    parse({
      input: [{ data_type: 'TYPE_FP32', format: 'format_nchw' }],
      output: [{ data_type: 11 }],
      instance_group: [{ kind: 'Kind_Gpu' }, { kind: 2 }],
    }),
    {
      input: [{ data_type: 'TYPE_FP32', format: 'FORMAT_NCHW' }],
      output: [{ data_type: 'TYPE_FP32' }],
      instance_group: [{ kind: 'KIND_GPU' }, { kind: 'KIND_CPU' }],
    },
  );
  rejectsValue(
    { input: [{ data_type: 'FP32' }] },
    `config JSON: input[0].data_type: expected one of ${DATA_TYPES}, got "FP32"`,
  );
  rejectsValue(
    { instance_group: [{ kind: 9 }] },
    'config JSON: instance_group[0].kind: ModelInstanceGroup.Kind has no value numbered 9',
  );
  rejectsValue(
    { output: [{ data_type: true }] },
    `config JSON: output[0].data_type: expected one of ${DATA_TYPES}, got true`,
  );
});

void test('the parameters map: keys as written, values are ModelParameter messages', () => {
  const map =
    '{"intra_op_thread_count":{"string_value":"1"},"":{"string_value":""},' +
    '"__proto__":{"stringValue":"an own key"},"empty":{}}';
  const parameters = parseModelConfigJson(`{"parameters":${map}}`, 'config JSON').parameters;
  assert.deepStrictEqual(
    parameters,
    JSON.parse(map.replace('stringValue', 'string_value')) as typeof parameters,
  );
  assert.ok(Object.hasOwn(parameters ?? {}, '__proto__'));
  rejectsValue(
    { parameters: { k: 'v' } },
    'config JSON: parameters["k"]: expected an object (ModelParameter), got "v"',
  );
  rejectsValue(
    { parameters: [{ key: 'k', value: { string_value: 'v' } }] },
    'config JSON: parameters: expected an object (a map), got an array',
  );
  rejectsValue(
    { parameters: { k: { value: 'v' } } },
    'config JSON: parameters["k"]: unknown field "value" in ModelParameter',
  );
  rejectsValue(
    { parameters: { k: null } },
    'config JSON: parameters["k"]: expected an object (ModelParameter), got null',
  );
});

void test('integer map keys are checked and written as the text format writes them', () => {
  assert.deepStrictEqual(
    parse({ dynamic_batching: { priority_queue_policy: { '1': {}, '00': {} } } }).dynamic_batching,
    { priority_queue_policy: { '1': {}, '0': {} } },
  );
  rejectsValue(
    { dynamic_batching: { priority_queue_policy: { high: {} } } },
    'config JSON: dynamic_batching.priority_queue_policy["high"]: map key must be an integer (uint64), got "high"',
  );
  rejectsValue(
    { dynamic_batching: { priority_queue_policy: { '-1': {} } } },
    'config JSON: dynamic_batching.priority_queue_policy["-1"]: uint64 value -1 is out of range [0, 9007199254740991]',
  );
});

void test('instance_group and dynamic_batching: nested messages, repeated fields and their errors', () => {
  assert.deepStrictEqual(
    parse({
      instance_group: [{ name: 'a', kind: 'KIND_CPU', count: 3, gpus: [], profile: [] }],
      dynamic_batching: {},
    }),
    {
      instance_group: [{ name: 'a', kind: 'KIND_CPU', count: 3, gpus: [], profile: [] }],
      dynamic_batching: {},
    },
  );
  rejectsValue(
    { instance_group: { kind: 'KIND_CPU' } },
    'config JSON: instance_group: expected an array, got an object',
  );
  rejectsValue(
    { instance_group: [{ gpus: 0 }] },
    'config JSON: instance_group[0].gpus: expected an array, got 0',
  );
  rejectsValue(
    { dynamic_batching: { preferred_batch_size: [4, null] } },
    'config JSON: dynamic_batching.preferred_batch_size[1]: expected an integer (int32), got null',
  );
  rejectsValue(
    { dynamic_batching: { max_queue_delay: 100 } },
    'config JSON: dynamic_batching: unknown field "max_queue_delay" in ModelDynamicBatching (did you mean "max_queue_delay_microseconds"?)',
  );
  rejectsValue(
    { dynamic_batching: true },
    'config JSON: dynamic_batching: expected an object (ModelDynamicBatching), got true',
  );
});

void test('oneofs: version_policy, the scheduler and warmup data take one member', () => {
  assert.deepStrictEqual(parse({ version_policy: { all: {} } }).version_policy, { all: {} });
  assert.deepStrictEqual(parse({ version_policy: { latest: {} } }).version_policy, { latest: {} });
  rejectsValue(
    { version_policy: { latest: { num_versions: 1 }, all: {} } },
    'config JSON: version_policy: "latest" and "all" are both set, but only one member of oneof "policy_choice" may be',
  );
  rejectsValue(
    { dynamic_batching: {}, sequenceBatching: {} },
    'config JSON: "dynamic_batching" and "sequenceBatching" are both set, but only one member of oneof "scheduling_choice" may be',
  );
  rejectsValue(
    { model_warmup: [{ inputs: { x: { zero_data: true, random_data: true } } }] },
    'config JSON: model_warmup[0].inputs["x"]: "zero_data" and "random_data" are both set, but only one member of oneof "input_data_type" may be',
  );
  // null is "not set", so it does not take the oneof.
  assert.deepStrictEqual(parse({ version_policy: { latest: null, all: {} } }).version_policy, {
    all: {},
  });
  rejectsValue(
    { version_policy: { specific: { versions: [1, 'two'] } } },
    'config JSON: version_policy.specific.versions[1]: expected an integer (int64), got "two"',
  );
});

void test('model_warmup: samples with their inputs map and data oneof', () => {
  assert.deepStrictEqual(
    parse({
      model_warmup: [
        {
          name: 'w',
          batch_size: 1,
          count: '2',
          inputs: {
            a: { data_type: 'TYPE_INT32', dims: ['4'], zero_data: true },
            b: { dataType: 'TYPE_STRING', dims: [1], inputDataFile: 'b.raw' },
          },
        },
      ],
    }).model_warmup,
    [
      {
        name: 'w',
        batch_size: 1,
        count: 2,
        inputs: {
          a: { data_type: 'TYPE_INT32', dims: [4], zero_data: true },
          b: { data_type: 'TYPE_STRING', dims: [1], input_data_file: 'b.raw' },
        },
      },
    ],
  );
  rejectsValue(
    { model_warmup: [{ inputs: { a: { zero_data: 'yes' } } }] },
    'config JSON: model_warmup[0].inputs["a"].zero_data: expected true or false, got "yes"',
  );
});

void test('null means not set', () => {
  assert.deepStrictEqual(parse({ name: null, input: null, dynamic_batching: null }), {});
});

void test('unknown fields name the message, the path and the nearest field', () => {
  rejectsValue(
    { max_batch: 1 },
    'config JSON: unknown field "max_batch" in ModelConfig (did you mean "max_batch_size"?)',
  );
  rejectsValue(
    { input: [{ name: 'x' }, { name: 'y', dtype: 'TYPE_FP32' }] },
    'config JSON: input[1]: unknown field "dtype" in ModelInput',
  );
  rejectsValue(
    { optimization: { graph: { levels: 1 } } },
    'config JSON: optimization.graph: unknown field "levels" in ModelOptimizationPolicy.Graph (did you mean "level"?)',
  );
});

void test('wrong kinds', () => {
  rejectsValue({ name: 3 }, 'config JSON: name: expected a string, got 3');
  rejectsValue(
    { max_batch_size: true },
    'config JSON: max_batch_size: expected an integer (int32), got true',
  );
  rejectsValue(
    { input: [['x']] },
    'config JSON: input[0]: expected an object (ModelInput), got an array',
  );
  rejectsValue({ input: 'x' }, 'config JSON: input: expected an array, got "x"');
  rejectsValue(
    { input: [{ is_shape_tensor: 1 }] },
    'config JSON: input[0].is_shape_tensor: expected true or false, got 1',
  );
  rejectsValue(
    { model_metrics: { metric_control: [{ histogram_options: { buckets: [1, 'many'] } }] } },
    'config JSON: model_metrics.metric_control[0].histogram_options.buckets[1]: expected a number (double), got "many"',
  );
});

void test('integers: non-integral values and values out of range', () => {
  rejectsValue(
    { max_batch_size: 1.5 },
    'config JSON: max_batch_size: expected an integer (int32), got 1.5',
  );
  rejectsValue(
    { max_batch_size: '1.5' },
    'config JSON: max_batch_size: expected an integer (int32), got "1.5"',
  );
  rejectsValue(
    { max_batch_size: ' 1' },
    'config JSON: max_batch_size: expected an integer (int32), got " 1"',
  );
  rejectsValue(
    { max_batch_size: '' },
    'config JSON: max_batch_size: expected an integer (int32), got ""',
  );
  rejectsValue(
    { max_batch_size: 2147483648 },
    'config JSON: max_batch_size: int32 value 2147483648 is out of range [-2147483648, 2147483647]',
  );
  rejectsValue(
    { model_warmup: [{ batch_size: -1 }] },
    'config JSON: model_warmup[0].batch_size: uint32 value -1 is out of range [0, 4294967295]',
  );
  // 64-bit values must fit a JS number exactly, as in config.pbtxt.
  rejectsValue(
    { input: [{ dims: ['9007199254740992'] }] },
    'config JSON: input[0].dims[0]: int64 value 9007199254740992 is out of range [-9007199254740991, 9007199254740991]',
  );
  rejects(
    '{"input":[{"dims":[9007199254740993]}]}',
    'config JSON: input[0].dims[0]: int64 value 9007199254740992 is out of range [-9007199254740991, 9007199254740991]',
  );
});

void test('floats: numbers, numbers as strings, NaN and infinities as strings, float32 range', () => {
  const parsed = parse({
    sequence_batching: {
      control_input: [
        { control: [{ fp32_false_true: ['NaN', 'Infinity', '-Infinity', '0.5', 2] }] },
      ],
    },
  });
  assert.deepStrictEqual(parsed.sequence_batching, {
    control_input: [{ control: [{ fp32_false_true: [NaN, Infinity, -Infinity, 0.5, 2] }] }],
  });
  rejectsValue(
    { sequence_batching: { control_input: [{ control: [{ fp32_false_true: [1e39] }] }] } },
    'config JSON: sequence_batching.control_input[0].control[0].fp32_false_true[0]: float value 1e+39 is out of range',
  );
  rejectsValue(
    { sequence_batching: { control_input: [{ control: [{ fp32_false_true: ['nan'] }] }] } },
    'config JSON: sequence_batching.control_input[0].control[0].fp32_false_true[0]: expected a number (float), got "nan"',
  );
});

void test('text that is not a JSON object', () => {
  rejects('', /^config JSON: not valid JSON: /);
  rejects('{"name": "m",}', /^config JSON: not valid JSON: /);
  rejects('name: "m"', /^config JSON: not valid JSON: /);
  rejects('[]', 'config JSON: expected an object (ModelConfig), got an array');
  rejects('"m"', 'config JSON: expected an object (ModelConfig), got "m"');
  rejects('null', 'config JSON: expected an object (ModelConfig), got null');
});

void test(`nesting deeper than ${MAX_JSON_DEPTH} is refused before parsing`, () => {
  const nested = (depth: number) => `{"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
  // At the limit the document is parsed (and then refused for its unknown field).
  rejects(nested(MAX_JSON_DEPTH), 'config JSON: unknown field "x" in ModelConfig');
  rejects(
    nested(MAX_JSON_DEPTH + 1),
    `config JSON: JSON nesting depth exceeds maximum allowed limit (${MAX_JSON_DEPTH})`,
  );
  rejects(
    '['.repeat(100_000),
    `config JSON: JSON nesting depth exceeds maximum allowed limit (${MAX_JSON_DEPTH})`,
  );
  // Brackets inside strings, escaped quotes included, do not count.
  const inString = JSON.stringify({ name: `\\"${'['.repeat(500)}` });
  assert.equal(parseModelConfigJson(inString, 'config JSON').name, `\\"${'['.repeat(500)}`);
});

void test('the label names the document in every error', () => {
  assert.throws(() => parseModelConfigJson('{"max_batch_size":"x"}', "model 'm' load config"), {
    message: `model 'm' load config: max_batch_size: expected an integer (int32), got "x"`,
  });
});

// ModelConfig has no bytes or bool-keyed fields; the reader handles them as protobuf does.
const TINY: ProtoSchema = {
  enums: {},
  messages: {
    T: [
      { name: 'blob', number: 1, label: 'optional', type: { kind: 'scalar', name: 'bytes' } },
      {
        name: 'flags',
        number: 2,
        label: 'map',
        type: { kind: 'scalar', name: 'string' },
        key: 'bool',
      },
    ],
  },
};

void test('bytes are base64 and bool map keys are "true" / "false"', () => {
  const read = (text: string) => parseJsonProto(text, TINY, 'T', { label: 't' });
  assert.deepStrictEqual(read('{"blob":"AP8=","flags":{"true":"a","false":"b"}}'), {
    blob: '\u0000\u00ff',
    flags: { true: 'a', false: 'b' },
  });
  assert.deepStrictEqual(read('{"blob":"AP8"}'), { blob: '\u0000\u00ff' });
  assert.throws(() => read('{"blob":"not base64!"}'), {
    message: 't: blob: expected a base64 string (bytes), got "not base64!"',
  });
  assert.throws(() => read('{"flags":{"yes":"a"}}'), {
    message: 't: flags["yes"]: map key must be "true" or "false", got "yes"',
  });
});
