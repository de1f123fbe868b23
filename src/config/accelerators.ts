// The execution providers an ORT session can get, in one table: which list of
// `optimization.execution_accelerators` names each one, which instances it runs on, the name
// onnxruntime-node knows it by, the provider libraries it needs beside the binding, and how its
// accelerator parameters become ORT options (Triton ORT backend README; onnxruntime.cc LoadModel).

import { BOOL, readParameter, type OptionValue } from './parameter-value.js';
import { tensorRtOptions } from './tensorrt-options.js';

/** Every provider, in the order a session registers them: TensorRT, CUDA, OpenVINO, CPU last. */
export const EXECUTION_PROVIDER_NAMES = ['tensorrt', 'cuda', 'openvino', 'cpu'] as const;
export type ExecutionProviderName = (typeof EXECUTION_PROVIDER_NAMES)[number];

/** EP-specific options, already under ORT's keys (e.g. trt_fp16_enable). */
export type ProviderOptions = Readonly<Record<string, OptionValue>>;

/** One provider as a session registers it; instances add their device id to GPU ones. */
export interface ProviderSettings {
  readonly name: ExecutionProviderName;
  readonly options: ProviderOptions;
}

/** The config list an accelerator is named in. */
export type AcceleratorList = 'gpu_execution_accelerator' | 'cpu_execution_accelerator';

export interface ExecutionProviderSpec {
  /** Where config.pbtxt names it; null for the CPU provider, which every session gets last. */
  readonly list: AcceleratorList | null;
  /** GPU providers run on GPU instances only; CPU ones on every instance. */
  readonly device: 'GPU' | 'CPU';
  /** onnxruntime-node's name for it, in `executionProviders` and `listSupportedBackends()`. */
  readonly ortName: string;
  /**
   * Provider library stems (`libonnxruntime_<stem>.so`) that must sit beside the binding when the
   * binding does not bundle the provider; null when infernode does not know them, so the provider
   * counts as installed only when bundled. TensorRT needs CUDA's too: CUDA is always its fallback.
   */
  readonly libraries: readonly string[] | null;
  /** Accelerator parameters -> ORT options; CONFIG_INVALID for a bad one. */
  readonly options: (params: Readonly<Record<string, string>>) => ProviderOptions;
}

/** CUDA accelerator keys the backend parses as booleans; every other key passes through as text. */
const CUDA_BOOL_KEYS = new Set(['do_copy_in_default_stream', 'use_ep_level_unified_stream']);

/** CUDA accelerator parameters: arbitrary ORT CUDA EP keys, two of them checked as booleans. */
export function cudaOptions(params: Readonly<Record<string, string>>): ProviderOptions {
  const options: Record<string, OptionValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === '') continue;
    setOwn(options, key, CUDA_BOOL_KEYS.has(key) ? readParameter(key, value, BOOL) : value);
  }
  return options;
}

/** OpenVINO runs on the CPU device (the backend sets device_type CPU); other keys pass through. */
function openVinoOptions(params: Readonly<Record<string, string>>): ProviderOptions {
  const options: Record<string, OptionValue> = { device_type: 'CPU' };
  for (const [key, value] of Object.entries(params)) setOwn(options, key, value);
  return options;
}

export const EXECUTION_PROVIDERS: Readonly<Record<ExecutionProviderName, ExecutionProviderSpec>> =
  Object.freeze({
    tensorrt: {
      list: 'gpu_execution_accelerator',
      device: 'GPU',
      ortName: 'tensorrt',
      libraries: ['providers_shared', 'providers_cuda', 'providers_tensorrt'],
      options: tensorRtOptions,
    },
    cuda: {
      list: 'gpu_execution_accelerator',
      device: 'GPU',
      ortName: 'cuda',
      libraries: ['providers_shared', 'providers_cuda'],
      options: cudaOptions,
    },
    openvino: {
      list: 'cpu_execution_accelerator',
      device: 'CPU',
      ortName: 'openvino',
      libraries: null,
      options: openVinoOptions,
    },
    cpu: { list: null, device: 'CPU', ortName: 'cpu', libraries: [], options: () => ({}) },
  });

/** The accelerator names a config list accepts, in registration order. */
export function acceleratorsIn(list: AcceleratorList): ExecutionProviderName[] {
  return EXECUTION_PROVIDER_NAMES.filter((n) => EXECUTION_PROVIDERS[n].list === list);
}

/** The provider `name` stands for in `list`, or undefined when that list does not take it. */
export function acceleratorNamed(
  list: AcceleratorList,
  name: string,
): ExecutionProviderName | undefined {
  return acceleratorsIn(list).find((n) => n === name);
}

/** The provider onnxruntime-node calls `ortName`, if it is one infernode can register. */
export function providerForOrtName(ortName: string): ExecutionProviderName | undefined {
  return EXECUTION_PROVIDER_NAMES.find((n) => EXECUTION_PROVIDERS[n].ortName === ortName);
}

/** Sets an own property, so a key named `__proto__` stays data. */
function setOwn(target: Record<string, OptionValue>, key: string, value: OptionValue): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
