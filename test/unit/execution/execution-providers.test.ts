// The execution-accelerator mapping, entry by entry, against the Triton ORT backend README table
// "Parameter mapping between ONNX Runtime and Triton ONNXRuntime Backend", its CUDA and OpenVINO
// sections, and "Deprecated Parameters".

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  cudaOptions,
  deprecatedCudaOptions,
  executionProvidersFor,
  tensorRtOptions,
  unappliedOptionWarnings,
} from '../../../src/execution/execution-providers.js';
import { accel, modelConfig } from './model-config-fixture.js';

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

void describe('CUDA accelerator parameters', () => {
  void it('passes arbitrary keys through as text', () => {
    assert.deepEqual(cudaOptions({ cudnn_conv_use_max_workspace: '0', tunable_op_enable: '1' }), {
      cudnn_conv_use_max_workspace: '0',
      tunable_op_enable: '1',
    });
  });
  void it('use_ep_level_unified_stream is checked as a boolean', () => {
    assert.deepEqual(cudaOptions({ use_ep_level_unified_stream: '1' }), {
      use_ep_level_unified_stream: true,
    });
    assert.throws(() => cudaOptions({ use_ep_level_unified_stream: '2' }), invalid(/boolean/));
  });
  void it('do_copy_in_default_stream is checked as a boolean', () => {
    assert.deepEqual(cudaOptions({ do_copy_in_default_stream: 'false' }), {
      do_copy_in_default_stream: false,
    });
  });
});

void describe('deprecated top-level CUDA parameters', () => {
  const dep = (key: string, value: string) =>
    deprecatedCudaOptions(modelConfig({ parameters: { [key]: value } }));
  void it('cudnn_conv_algo_search 0/1/2 -> EXHAUSTIVE/HEURISTIC/DEFAULT', () => {
    assert.deepEqual(dep('cudnn_conv_algo_search', '0'), { cudnn_conv_algo_search: 'EXHAUSTIVE' });
    assert.deepEqual(dep('cudnn_conv_algo_search', '1'), { cudnn_conv_algo_search: 'HEURISTIC' });
    assert.deepEqual(dep('cudnn_conv_algo_search', '2'), { cudnn_conv_algo_search: 'DEFAULT' });
    assert.throws(() => dep('cudnn_conv_algo_search', '3'), invalid(/expected 0, 1 or 2/));
  });
  void it('gpu_mem_limit passes through as text (SIZE_MAX does not fit a double)', () => {
    assert.deepEqual(dep('gpu_mem_limit', '18446744073709551615'), {
      gpu_mem_limit: '18446744073709551615',
    });
    assert.throws(() => dep('gpu_mem_limit', '4GB'), invalid(/gpu_mem_limit/));
  });
  void it('arena_extend_strategy 0/1 -> kNextPowerOfTwo/kSameAsRequested', () => {
    assert.deepEqual(dep('arena_extend_strategy', '0'), {
      arena_extend_strategy: 'kNextPowerOfTwo',
    });
    assert.deepEqual(dep('arena_extend_strategy', '1'), {
      arena_extend_strategy: 'kSameAsRequested',
    });
    assert.throws(() => dep('arena_extend_strategy', '2'), invalid(/expected 0 or 1/));
  });
  void it('do_copy_in_default_stream is a boolean', () => {
    assert.deepEqual(dep('do_copy_in_default_stream', '1'), { do_copy_in_default_stream: true });
  });
  void it('nothing when none is present', () => {
    assert.deepEqual(deprecatedCudaOptions(modelConfig()), {});
  });
});

void describe('executionProvidersFor', () => {
  const gpu0 = { kind: 'KIND_GPU', deviceId: 2 } as const;
  const cpu = { kind: 'KIND_CPU' } as const;

  void it('CPU instance with no accelerators: CPU only', () => {
    assert.deepEqual(executionProvidersFor(modelConfig(), cpu), [{ name: 'cpu', options: {} }]);
  });

  void it('GPU instance: CUDA on its device by default, CPU last', () => {
    assert.deepEqual(executionProvidersFor(modelConfig(), gpu0), [
      { name: 'cuda', deviceId: 2, options: {} },
      { name: 'cpu', options: {} },
    ]);
  });

  void it('TensorRT comes first, with CUDA as its fallback on the same device', () => {
    const config = modelConfig({
      gpu: [
        accel('tensorrt', { precision_mode: 'FP16' }),
        accel('cuda', { tunable_op_enable: '1' }),
      ],
    });
    assert.deepEqual(executionProvidersFor(config, gpu0), [
      { name: 'tensorrt', deviceId: 2, options: { trt_fp16_enable: true } },
      { name: 'cuda', deviceId: 2, options: { tunable_op_enable: '1' } },
      { name: 'cpu', options: {} },
    ]);
  });

  void it('deprecated top-level keys land on the CUDA EP and win over the accelerator’s', () => {
    const config = modelConfig({
      gpu: [accel('cuda', { cudnn_conv_algo_search: 'DEFAULT' })],
      parameters: { cudnn_conv_algo_search: '1', gpu_mem_limit: '1024' },
    });
    assert.deepEqual(executionProvidersFor(config, gpu0)[0], {
      name: 'cuda',
      deviceId: 2,
      options: { cudnn_conv_algo_search: 'HEURISTIC', gpu_mem_limit: '1024' },
    });
  });

  void it('GPU accelerators are not used by CPU instances', () => {
    const config = modelConfig({ gpu: [accel('tensorrt')] });
    assert.deepEqual(executionProvidersFor(config, cpu), [{ name: 'cpu', options: {} }]);
  });

  void it('openvino is a CPU accelerator with device_type CPU, before the CPU EP', () => {
    const config = modelConfig({ cpu: [accel('openvino')] });
    assert.deepEqual(executionProvidersFor(config, cpu), [
      { name: 'openvino', options: { device_type: 'CPU' } },
      { name: 'cpu', options: {} },
    ]);
  });

  void it('an unknown accelerator name is CONFIG_INVALID in either list, for any instance kind', () => {
    assert.throws(
      () => executionProvidersFor(modelConfig({ gpu: [accel('rocm')] }), cpu),
      invalid(/unknown Execution Accelerator "rocm"/),
    );
    assert.throws(
      () => executionProvidersFor(modelConfig({ cpu: [accel('dnnl')] }), gpu0),
      invalid(/unknown Execution Accelerator "dnnl"/),
    );
  });

  void it('warns that the binding applies only the device id of GPU providers', () => {
    const config = modelConfig({ gpu: [accel('tensorrt', { precision_mode: 'FP16' })] });
    const lines = unappliedOptionWarnings(executionProvidersFor(config, gpu0));
    assert.deepEqual(lines, [
      'execution provider "tensorrt": onnxruntime-node applies only the device id; ' +
        'options not applied: trt_fp16_enable',
    ]);
  });
});
