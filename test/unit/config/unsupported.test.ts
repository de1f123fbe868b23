// Triton features infernode parses but does not implement (UNSUPPORTED errors, or warnings for ones
// that only tune absent hardware). The ORT backend's parameters are in
// test/unit/execution/onnxruntime/config/ort-parameters.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check, IO, rejects } from './pipeline-helpers.js';

void test('unsupported Triton features are UNSUPPORTED errors naming the field', () => {
  const cases: [string, RegExp][] = [
    [
      'max_batch_size: 2 sequence_batching { iterative_sequence: true }',
      /sequence_batching \{ iterative_sequence: true \} is not supported by infernode \(requests are never rescheduled\)/,
    ],
    ['batch_input { kind: BATCH_ELEMENT_COUNT }', /batch_input is not supported/],
    ['batch_output { }', /batch_output is not supported/],
    [
      'model_transaction_policy { decoupled: true }',
      /model_transaction_policy \{ decoupled: true \} is not supported/,
    ],
    [
      'model_repository_agents { agents { name: "checksum" } }',
      /model_repository_agents is not supported/,
    ],
    [
      'model_operations { op_library_filename: "libop.so" }',
      /model_operations.op_library_filename is not supported/,
    ],
    ['runtime: "model.py"', /runtime "model.py" is not supported/],
    ['instance_group { passive: true }', /instance_group\[0\].passive is not supported/],
    [
      'instance_group [ { }, { secondary_devices { } } ]',
      /instance_group\[1\].secondary_devices is not supported/,
    ],
    ['instance_group { host_policy: "numa" }', /instance_group\[0\].host_policy is not supported/],
  ];
  for (const [extra, message] of cases) rejects(`${IO} ${extra}`, 'UNSUPPORTED', message);
  // Explicitly-off features are fine.
  assert.deepEqual(
    check(
      `${IO} response_cache { enable: false } model_transaction_policy { decoupled: false } model_operations { }`,
    ),
    [],
  );
});

void test('TensorRT-only fields are invalid for ONNX, as in Triton', () => {
  rejects(
    `${IO} instance_group { profile: "0" }`,
    'CONFIG_INVALID',
    /specifies profile field which is only supported for TensorRT models/,
  );
  rejects(
    'input { name: "x" data_type: TYPE_INT64 dims: [1] is_shape_tensor: true }',
    'CONFIG_INVALID',
    /shape tensors are only supported for TensorRT platform/,
  );
  rejects(
    'output { name: "y" data_type: TYPE_INT64 dims: [1] is_non_linear_format_io: true }',
    'CONFIG_INVALID',
    /non-linear IO format is only supported for TensorRT platform/,
  );
});

void test('hardware-tuning fields infernode has no use for are accepted with warnings', () => {
  const warnings = check(
    `${IO} optimization { cuda { graphs: true } priority: PRIORITY_MAX gather_kernel_buffer_threshold: 4 eager_batching: true }
     cc_model_filenames { key: "8.0" value: "a.onnx" }
     model_metrics { metric_control { histogram_options { buckets: [ 1 ] } } }`,
  );
  assert.deepEqual(
    warnings.map((w) => w.replace(/ is ignored .*/, '')),
    [
      "model 'm': optimization.cuda",
      "model 'm': optimization.priority",
      "model 'm': optimization.gather_kernel_buffer_threshold",
      "model 'm': optimization.eager_batching",
      "model 'm': cc_model_filenames",
      "model 'm': model_metrics",
    ],
  );
});
