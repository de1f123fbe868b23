// The tensorrt accelerator's parameters, entry by entry, against the Triton ORT backend README table
// "Parameter mapping between ONNX Runtime and Triton ONNXRuntime Backend".

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tensorRtOptions } from '../../../../../src/execution/onnxruntime/config/tensorrt-options.js';
import { InferenceServerError } from '../../../../../src/errors.js';

const invalid = (pattern: RegExp) => (e: unknown) =>
  e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && pattern.test(e.message);
const trt = (key: string, value: string) => tensorRtOptions({ [key]: value });

void describe('TensorRT accelerator parameters (README table, one row per test line)', () => {
  void it('max_workspace_size_bytes -> trt_max_workspace_size (int)', () => {
    assert.deepEqual(trt('max_workspace_size_bytes', '4294967296'), {
      trt_max_workspace_size: 4294967296,
    });
  });
  void it('trt_max_partition_iterations (int)', () => {
    assert.deepEqual(trt('trt_max_partition_iterations', '1000'), {
      trt_max_partition_iterations: 1000,
    });
  });
  void it('trt_min_subgraph_size (int)', () => {
    assert.deepEqual(trt('trt_min_subgraph_size', '1'), { trt_min_subgraph_size: 1 });
  });
  void it('precision_mode FP16 -> trt_fp16_enable', () => {
    assert.deepEqual(trt('precision_mode', 'FP16'), { trt_fp16_enable: true });
  });
  void it('precision_mode BF16 -> trt_bf16_enable', () => {
    assert.deepEqual(trt('precision_mode', 'BF16'), { trt_bf16_enable: true });
  });
  void it('precision_mode INT8 -> trt_int8_enable', () => {
    assert.deepEqual(trt('precision_mode', 'INT8'), { trt_int8_enable: true });
  });
  void it('precision_mode FP32 (the default) sets no flag', () => {
    assert.deepEqual(trt('precision_mode', 'FP32'), {});
  });
  void it('precision_mode anything else is CONFIG_INVALID', () => {
    assert.throws(() => trt('precision_mode', 'FP8'), invalid(/precision_mode.*got "FP8"/));
  });
  void it('int8_calibration_table_name -> trt_int8_calibration_table_name (string)', () => {
    assert.deepEqual(trt('int8_calibration_table_name', 'calib.flatbuffers'), {
      trt_int8_calibration_table_name: 'calib.flatbuffers',
    });
  });
  void it('int8_use_native_calibration_table -> trt_int8_use_native_calibration_table (bool)', () => {
    assert.deepEqual(trt('int8_use_native_calibration_table', 'true'), {
      trt_int8_use_native_calibration_table: true,
    });
  });
  void it('trt_dla_enable (bool)', () => {
    assert.deepEqual(trt('trt_dla_enable', '0'), { trt_dla_enable: false });
  });
  void it('trt_dla_core (int)', () => {
    assert.deepEqual(trt('trt_dla_core', '0'), { trt_dla_core: 0 });
  });
  void it('trt_engine_cache_enable (bool)', () => {
    assert.deepEqual(trt('trt_engine_cache_enable', '1'), { trt_engine_cache_enable: true });
  });
  void it('trt_engine_cache_path (string)', () => {
    assert.deepEqual(trt('trt_engine_cache_path', '/cache'), { trt_engine_cache_path: '/cache' });
  });
  void it('trt_engine_cache_prefix (string)', () => {
    assert.deepEqual(trt('trt_engine_cache_prefix', 'm'), { trt_engine_cache_prefix: 'm' });
  });
  void it('trt_dump_subgraphs (bool)', () => {
    assert.deepEqual(trt('trt_dump_subgraphs', 'false'), { trt_dump_subgraphs: false });
  });
  void it('trt_force_sequential_engine_build (bool)', () => {
    assert.deepEqual(trt('trt_force_sequential_engine_build', '1'), {
      trt_force_sequential_engine_build: true,
    });
  });
  void it('trt_context_memory_sharing_enable (bool)', () => {
    assert.deepEqual(trt('trt_context_memory_sharing_enable', '1'), {
      trt_context_memory_sharing_enable: true,
    });
  });
  void it('trt_layer_norm_fp32_fallback (bool)', () => {
    assert.deepEqual(trt('trt_layer_norm_fp32_fallback', '1'), {
      trt_layer_norm_fp32_fallback: true,
    });
  });
  void it('trt_timing_cache_enable (bool)', () => {
    assert.deepEqual(trt('trt_timing_cache_enable', '1'), { trt_timing_cache_enable: true });
  });
  void it('trt_timing_cache_path (string)', () => {
    assert.deepEqual(trt('trt_timing_cache_path', '/t'), { trt_timing_cache_path: '/t' });
  });
  void it('trt_force_timing_cache (bool)', () => {
    assert.deepEqual(trt('trt_force_timing_cache', '1'), { trt_force_timing_cache: true });
  });
  void it('trt_detailed_build_log (bool)', () => {
    assert.deepEqual(trt('trt_detailed_build_log', '1'), { trt_detailed_build_log: true });
  });
  void it('trt_build_heuristics_enable (bool)', () => {
    assert.deepEqual(trt('trt_build_heuristics_enable', '1'), {
      trt_build_heuristics_enable: true,
    });
  });
  void it('trt_sparsity_enable (bool)', () => {
    assert.deepEqual(trt('trt_sparsity_enable', '1'), { trt_sparsity_enable: true });
  });
  void it('trt_builder_optimization_level (int)', () => {
    assert.deepEqual(trt('trt_builder_optimization_level', '3'), {
      trt_builder_optimization_level: 3,
    });
  });
  void it('trt_auxiliary_streams (int, may be negative)', () => {
    assert.deepEqual(trt('trt_auxiliary_streams', '-1'), { trt_auxiliary_streams: -1 });
  });
  void it('trt_tactic_sources (string)', () => {
    assert.deepEqual(trt('trt_tactic_sources', '-CUDNN,+CUBLAS'), {
      trt_tactic_sources: '-CUDNN,+CUBLAS',
    });
  });
  void it('trt_extra_plugin_lib_paths (string)', () => {
    assert.deepEqual(trt('trt_extra_plugin_lib_paths', '/p.so'), {
      trt_extra_plugin_lib_paths: '/p.so',
    });
  });
  void it('trt_profile_min_shapes (string)', () => {
    assert.deepEqual(trt('trt_profile_min_shapes', 'in:1x3'), { trt_profile_min_shapes: 'in:1x3' });
  });
  void it('trt_profile_max_shapes (string)', () => {
    assert.deepEqual(trt('trt_profile_max_shapes', 'in:8x3'), { trt_profile_max_shapes: 'in:8x3' });
  });
  void it('trt_profile_opt_shapes (string)', () => {
    assert.deepEqual(trt('trt_profile_opt_shapes', 'in:4x3'), { trt_profile_opt_shapes: 'in:4x3' });
  });
  void it('trt_cuda_graph_enable (bool)', () => {
    assert.deepEqual(trt('trt_cuda_graph_enable', '1'), { trt_cuda_graph_enable: true });
  });
  void it('trt_dump_ep_context_model (bool)', () => {
    assert.deepEqual(trt('trt_dump_ep_context_model', '1'), { trt_dump_ep_context_model: true });
  });
  void it('trt_ep_context_file_path (string)', () => {
    assert.deepEqual(trt('trt_ep_context_file_path', 'ctx.onnx'), {
      trt_ep_context_file_path: 'ctx.onnx',
    });
  });
  void it('trt_ep_context_embed_mode (int)', () => {
    assert.deepEqual(trt('trt_ep_context_embed_mode', '1'), { trt_ep_context_embed_mode: 1 });
  });
  void it('any other trt_* key passes through verbatim', () => {
    assert.deepEqual(trt('trt_weight_stripped_engine_enable', '1'), {
      trt_weight_stripped_engine_enable: '1',
    });
  });
  void it('an empty value leaves ORT’s default (the key is dropped)', () => {
    assert.deepEqual(trt('trt_engine_cache_path', ''), {});
  });
  void it('a typed key with a value of the wrong type is CONFIG_INVALID', () => {
    assert.throws(() => trt('trt_engine_cache_enable', 'maybe'), invalid(/expected a boolean/));
    assert.throws(() => trt('trt_dla_core', 'x'), invalid(/expected an integer/));
    assert.throws(() => trt('max_workspace_size_bytes', '-1'), invalid(/expected an integer >= 0/));
  });
  void it('an unknown non-trt_ key is CONFIG_INVALID', () => {
    assert.throws(
      () => trt('workspace', '1'),
      invalid(/unknown parameter "workspace" is provided for TensorRT Execution Accelerator/),
    );
  });
});

void describe('TensorRT values of the wrong type: the message names the key, the form and the value', () => {
  const message = (key: string, value: string, expected: string) => (e: unknown) =>
    e instanceof InferenceServerError &&
    e.code === 'CONFIG_INVALID' &&
    e.message === `parameter "${key}": expected ${expected}, got "${value}"`;
  void it('bool, int and uint keys', () => {
    assert.throws(
      () => trt('trt_engine_cache_enable', 'maybe'),
      message(
        'trt_engine_cache_enable',
        'maybe',
        'a boolean ("1"/"0", "true"/"false", "on"/"off")',
      ),
    );
    assert.throws(() => trt('trt_dla_core', '1.5'), message('trt_dla_core', '1.5', 'an integer'));
    assert.throws(
      () => trt('max_workspace_size_bytes', '-1'),
      message('max_workspace_size_bytes', '-1', 'an integer >= 0'),
    );
  });
  void it('precision_mode names its four values', () => {
    assert.throws(
      () => trt('precision_mode', 'toString'),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.message ===
          'TensorRT parameter "precision_mode": expected FP32, FP16, BF16 or INT8, got "toString"',
    );
  });
  void it('a key named like an Object.prototype member is an unknown key', () => {
    assert.throws(
      () => trt('constructor', '1'),
      invalid(/^unknown parameter "constructor" is provided for TensorRT Execution Accelerator$/),
    );
  });
});
