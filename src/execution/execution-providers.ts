// The mapping from `optimization.execution_accelerators` (and the deprecated top-level CUDA
// parameters) to ORT execution providers, as the Triton ORT backend README tables it (source:
// onnxruntime_backend src/onnxruntime.cc LoadModel). Order: TensorRT, CUDA, OpenVINO, CPU last.

import type { InstanceKind, ModelConfig } from '../config/model-config.js';
import { fail } from '../errors.js';
import { modelParameter, parseBool, parseCount, parseInteger } from './ort-parameters.js';
import type { ExecutionProviderPlan } from './session-plan.js';

type OptionValue = string | number | boolean;
type ValueKind = 'bool' | 'int' | 'uint' | 'string';

/**
 * Triton's TensorRT accelerator keys -> ORT TensorRT EP option and how the value is checked.
 * `precision_mode` is handled separately (one key fans out to three flags).
 */
export const TENSORRT_PARAMETERS: Readonly<Record<string, readonly [string, ValueKind]>> = {
  max_workspace_size_bytes: ['trt_max_workspace_size', 'uint'],
  trt_max_partition_iterations: ['trt_max_partition_iterations', 'int'],
  trt_min_subgraph_size: ['trt_min_subgraph_size', 'int'],
  int8_calibration_table_name: ['trt_int8_calibration_table_name', 'string'],
  int8_use_native_calibration_table: ['trt_int8_use_native_calibration_table', 'bool'],
  trt_dla_enable: ['trt_dla_enable', 'bool'],
  trt_dla_core: ['trt_dla_core', 'int'],
  trt_engine_cache_enable: ['trt_engine_cache_enable', 'bool'],
  trt_engine_cache_path: ['trt_engine_cache_path', 'string'],
  trt_engine_cache_prefix: ['trt_engine_cache_prefix', 'string'],
  trt_dump_subgraphs: ['trt_dump_subgraphs', 'bool'],
  trt_force_sequential_engine_build: ['trt_force_sequential_engine_build', 'bool'],
  trt_context_memory_sharing_enable: ['trt_context_memory_sharing_enable', 'bool'],
  trt_layer_norm_fp32_fallback: ['trt_layer_norm_fp32_fallback', 'bool'],
  trt_timing_cache_enable: ['trt_timing_cache_enable', 'bool'],
  trt_timing_cache_path: ['trt_timing_cache_path', 'string'],
  trt_force_timing_cache: ['trt_force_timing_cache', 'bool'],
  trt_detailed_build_log: ['trt_detailed_build_log', 'bool'],
  trt_build_heuristics_enable: ['trt_build_heuristics_enable', 'bool'],
  trt_sparsity_enable: ['trt_sparsity_enable', 'bool'],
  trt_builder_optimization_level: ['trt_builder_optimization_level', 'int'],
  trt_auxiliary_streams: ['trt_auxiliary_streams', 'int'],
  trt_tactic_sources: ['trt_tactic_sources', 'string'],
  trt_extra_plugin_lib_paths: ['trt_extra_plugin_lib_paths', 'string'],
  trt_profile_min_shapes: ['trt_profile_min_shapes', 'string'],
  trt_profile_max_shapes: ['trt_profile_max_shapes', 'string'],
  trt_profile_opt_shapes: ['trt_profile_opt_shapes', 'string'],
  trt_cuda_graph_enable: ['trt_cuda_graph_enable', 'bool'],
  trt_dump_ep_context_model: ['trt_dump_ep_context_model', 'bool'],
  trt_ep_context_file_path: ['trt_ep_context_file_path', 'string'],
  trt_ep_context_embed_mode: ['trt_ep_context_embed_mode', 'int'],
};

/** precision_mode -> the TensorRT flag it turns on (FP32 is the default and turns on none). */
const PRECISION_FLAGS: Readonly<Record<string, string | null>> = {
  FP32: null,
  FP16: 'trt_fp16_enable',
  BF16: 'trt_bf16_enable',
  INT8: 'trt_int8_enable',
};

/** CUDA accelerator keys the backend parses as booleans; every other key passes through as text. */
const CUDA_BOOL_KEYS = new Set(['do_copy_in_default_stream', 'use_ep_level_unified_stream']);

function convert(key: string, value: string, kind: ValueKind): OptionValue {
  switch (kind) {
    case 'bool':
      return parseBool(key, value);
    case 'int':
      return parseInteger(key, value);
    case 'uint':
      return parseCount(key, value);
    case 'string':
      return value;
  }
}

/** TensorRT accelerator parameters -> ORT TensorRT EP options. */
export function tensorRtOptions(
  params: Readonly<Record<string, string>>,
): Record<string, OptionValue> {
  const options: Record<string, OptionValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (key === 'precision_mode') {
      const flag = PRECISION_FLAGS[value];
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
    const entry = TENSORRT_PARAMETERS[key];
    if (entry !== undefined) {
      options[entry[0]] = convert(key, value, entry[1]);
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

/** The deprecated top-level CUDA parameters (README "Deprecated Parameters") that are present. */
export function deprecatedCudaOptions(config: ModelConfig): Record<string, OptionValue> {
  const options: Record<string, OptionValue> = {};
  const search = modelParameter(config, 'cudnn_conv_algo_search');
  if (search !== undefined) {
    const names = ['EXHAUSTIVE', 'HEURISTIC', 'DEFAULT'];
    const name = names[parseCount('cudnn_conv_algo_search', search)];
    if (name === undefined) {
      throw fail(
        'CONFIG_INVALID',
        `parameter "cudnn_conv_algo_search": expected 0, 1 or 2, got "${search}"`,
      );
    }
    options['cudnn_conv_algo_search'] = name;
  }
  const memLimit = modelParameter(config, 'gpu_mem_limit');
  if (memLimit !== undefined) {
    // Kept as text: the usual "no limit" value is SIZE_MAX, beyond a double's exact range.
    if (!/^\d+$/.test(memLimit)) {
      throw fail(
        'CONFIG_INVALID',
        `parameter "gpu_mem_limit": expected a byte count, got "${memLimit}"`,
      );
    }
    options['gpu_mem_limit'] = memLimit;
  }
  const arena = modelParameter(config, 'arena_extend_strategy');
  if (arena !== undefined) {
    const names = ['kNextPowerOfTwo', 'kSameAsRequested'];
    const name = names[parseCount('arena_extend_strategy', arena)];
    if (name === undefined) {
      throw fail(
        'CONFIG_INVALID',
        `parameter "arena_extend_strategy": expected 0 or 1, got "${arena}"`,
      );
    }
    options['arena_extend_strategy'] = name;
  }
  const copy = modelParameter(config, 'do_copy_in_default_stream');
  if (copy !== undefined) {
    options['do_copy_in_default_stream'] = parseBool('do_copy_in_default_stream', copy);
  }
  return options;
}

/** CUDA accelerator parameters: arbitrary ORT CUDA EP keys, two of them checked as booleans. */
export function cudaOptions(params: Readonly<Record<string, string>>): Record<string, OptionValue> {
  const options: Record<string, OptionValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === '') continue;
    options[key] = CUDA_BOOL_KEYS.has(key) ? parseBool(key, value) : value;
  }
  return options;
}

const unknownAccelerator = (name: string): Error =>
  fail('CONFIG_INVALID', `unknown Execution Accelerator "${name}" is requested`);

/**
 * The execution providers for one instance, in priority order, CPU last. GPU instances get TensorRT
 * (if configured) and always CUDA (the primary GPU EP, or TensorRT's fallback) on their device;
 * every instance gets the configured CPU accelerators (OpenVINO). Unknown names are CONFIG_INVALID,
 * checked for every instance kind so that a typo fails the load even on a CPU-only host.
 */
export function executionProvidersFor(
  config: ModelConfig,
  instance: { readonly kind: InstanceKind; readonly deviceId?: number },
): ExecutionProviderPlan[] {
  const accelerators = config.optimization?.execution_accelerators;
  const gpuList = accelerators?.gpu_execution_accelerator ?? [];
  const cpuList = accelerators?.cpu_execution_accelerator ?? [];
  const providers: ExecutionProviderPlan[] = [];

  let trt: Record<string, OptionValue> | undefined;
  const cuda: Record<string, OptionValue> = {};
  for (const accel of gpuList) {
    if (accel.name === 'tensorrt') trt = { ...trt, ...tensorRtOptions(accel.parameters) };
    else if (accel.name === 'cuda') Object.assign(cuda, cudaOptions(accel.parameters));
    else throw unknownAccelerator(accel.name);
  }
  // The backend applies the deprecated top-level keys after the accelerator's, so they win.
  Object.assign(cuda, deprecatedCudaOptions(config));

  if (instance.kind === 'KIND_GPU') {
    const deviceId = instance.deviceId ?? 0;
    if (trt !== undefined) providers.push({ name: 'tensorrt', deviceId, options: trt });
    providers.push({ name: 'cuda', deviceId, options: cuda });
  }
  for (const accel of cpuList) {
    if (accel.name !== 'openvino') throw unknownAccelerator(accel.name);
    providers.push({ name: 'openvino', options: { device_type: 'CPU', ...accel.parameters } });
  }
  providers.push({ name: 'cpu', options: {} });
  return providers;
}

/**
 * onnxruntime-node 1.30 reads only `deviceId` from a CUDA or TensorRT provider entry (its
 * session_options_helper.cc creates default provider options and sets device_id), so any other
 * option is accepted here but cannot reach ORT. One line per provider that loses options.
 */
export function unappliedOptionWarnings(providers: readonly ExecutionProviderPlan[]): string[] {
  const lines: string[] = [];
  for (const p of providers) {
    const keys = Object.keys(p.options);
    if (p.name !== 'cpu' && keys.length > 0) {
      lines.push(
        `execution provider "${p.name}": onnxruntime-node applies only the device id; ` +
          `options not applied: ${keys.sort().join(', ')}`,
      );
    }
  }
  return lines;
}
