// The `tensorrt` accelerator's parameters as ORT TensorRT EP options: the Triton ORT backend README
// table "Parameter mapping between ONNX Runtime and Triton ONNXRuntime Backend" (onnxruntime.cc
// ~445-745), one row per key, with how each value is checked.

import { fail } from '../../../errors.js';
import type { ProviderOptions } from './accelerators.js';
import {
  BOOL,
  COUNT,
  INTEGER,
  readParameter,
  TEXT,
  type OptionValue,
  type ValueReader,
} from '../../../config/parameter-value.js';

/** Triton's key -> ORT's key and its value. `precision_mode` is apart: one key, three flags. */
export const TENSORRT_PARAMETERS: Readonly<
  Record<string, readonly [string, ValueReader<OptionValue>]>
> = {
  max_workspace_size_bytes: ['trt_max_workspace_size', COUNT],
  trt_max_partition_iterations: ['trt_max_partition_iterations', INTEGER],
  trt_min_subgraph_size: ['trt_min_subgraph_size', INTEGER],
  int8_calibration_table_name: ['trt_int8_calibration_table_name', TEXT],
  int8_use_native_calibration_table: ['trt_int8_use_native_calibration_table', BOOL],
  trt_dla_enable: ['trt_dla_enable', BOOL],
  trt_dla_core: ['trt_dla_core', INTEGER],
  trt_engine_cache_enable: ['trt_engine_cache_enable', BOOL],
  trt_engine_cache_path: ['trt_engine_cache_path', TEXT],
  trt_engine_cache_prefix: ['trt_engine_cache_prefix', TEXT],
  trt_dump_subgraphs: ['trt_dump_subgraphs', BOOL],
  trt_force_sequential_engine_build: ['trt_force_sequential_engine_build', BOOL],
  trt_context_memory_sharing_enable: ['trt_context_memory_sharing_enable', BOOL],
  trt_layer_norm_fp32_fallback: ['trt_layer_norm_fp32_fallback', BOOL],
  trt_timing_cache_enable: ['trt_timing_cache_enable', BOOL],
  trt_timing_cache_path: ['trt_timing_cache_path', TEXT],
  trt_force_timing_cache: ['trt_force_timing_cache', BOOL],
  trt_detailed_build_log: ['trt_detailed_build_log', BOOL],
  trt_build_heuristics_enable: ['trt_build_heuristics_enable', BOOL],
  trt_sparsity_enable: ['trt_sparsity_enable', BOOL],
  trt_builder_optimization_level: ['trt_builder_optimization_level', INTEGER],
  trt_auxiliary_streams: ['trt_auxiliary_streams', INTEGER],
  trt_tactic_sources: ['trt_tactic_sources', TEXT],
  trt_extra_plugin_lib_paths: ['trt_extra_plugin_lib_paths', TEXT],
  trt_profile_min_shapes: ['trt_profile_min_shapes', TEXT],
  trt_profile_max_shapes: ['trt_profile_max_shapes', TEXT],
  trt_profile_opt_shapes: ['trt_profile_opt_shapes', TEXT],
  trt_cuda_graph_enable: ['trt_cuda_graph_enable', BOOL],
  trt_dump_ep_context_model: ['trt_dump_ep_context_model', BOOL],
  trt_ep_context_file_path: ['trt_ep_context_file_path', TEXT],
  trt_ep_context_embed_mode: ['trt_ep_context_embed_mode', INTEGER],
};

/** precision_mode -> the TensorRT flag it turns on (FP32 is the default and turns on none). */
const PRECISION_FLAGS: Readonly<Record<string, string | null>> = {
  FP32: null,
  FP16: 'trt_fp16_enable',
  BF16: 'trt_bf16_enable',
  INT8: 'trt_int8_enable',
};

/** TensorRT accelerator parameters -> ORT TensorRT EP options. */
export function tensorRtOptions(params: Readonly<Record<string, string>>): ProviderOptions {
  const options: Record<string, OptionValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (key === 'precision_mode') {
      const flag = Object.prototype.hasOwnProperty.call(PRECISION_FLAGS, value)
        ? PRECISION_FLAGS[value]
        : undefined;
      if (flag === undefined) {
        throw fail(
          'CONFIG_INVALID',
          `TensorRT parameter "precision_mode": expected FP32, FP16, BF16 or INT8, got "${value}"`,
        );
      }
      if (flag !== null) options[flag] = true;
      continue;
    }
    // Like the backend, an empty value means "leave ORT's default".
    if (value === '') continue;
    const entry = Object.prototype.hasOwnProperty.call(TENSORRT_PARAMETERS, key)
      ? TENSORRT_PARAMETERS[key]
      : undefined;
    if (entry !== undefined) {
      options[entry[0]] = readParameter(key, value, entry[1]);
    } else if (key.startsWith('trt_')) {
      // A TensorRT EP option newer than the table above: ORT's key, passed through verbatim.
      options[key] = value;
    } else {
      throw fail(
        'CONFIG_INVALID',
        `unknown parameter "${key}" is provided for TensorRT Execution Accelerator`,
      );
    }
  }
  return options;
}
