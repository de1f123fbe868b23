// The execution providers an ORT session can get, in one table: which list of
// `optimization.execution_accelerators` names each one, which instances it runs on, the name
// onnxruntime-node knows it by, the provider libraries it needs beside the binding, how its
// accelerator parameters become ORT options (Triton ORT backend README; onnxruntime.cc LoadModel),
// and whether one process may enter it from two threads at once.

import { fail } from '../../../errors.js';
import {
  BOOL,
  choice,
  readParameter,
  type OptionValue,
  type ValueReader,
} from '../../../config/parameter-value.js';
import { tensorRtOptions } from './tensorrt-options.js';

/**
 * Every provider, in the order a session registers them: TensorRT, CUDA, WebGPU, OpenVINO, CPU last.
 */
export const EXECUTION_PROVIDER_NAMES = ['tensorrt', 'cuda', 'webgpu', 'openvino', 'cpu'] as const;
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
  /**
   * GPU providers only: whether a GPU instance gets it without naming it (CUDA, as in Triton), and
   * so whether its being installed makes the driver's GPUs the server's GPUs (KIND_AUTO picks GPU).
   */
  readonly implicit: boolean;
  /**
   * True when two threads of one process must never create or run sessions of this provider on one
   * device at once (WebGPU: every onnxruntime-node session in a process shares one WebGPU device and
   * queue, and concurrent use crashes the process). Such instances hold a per-device lock.
   */
  readonly serialized: boolean;
  /**
   * Whether the binding can put it on a chosen GPU. WebGPU in onnxruntime-node 1.30 takes no device
   * id (the binding rejects the option): it runs on the adapter the system's Vulkan offers first.
   */
  readonly choosesDevice: boolean;
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

/**
 * WebGPU accelerator parameters: the options onnxruntime-node's binding reads for it (it rejects any
 * other key, so an unknown one is a config error here, not a load failure later).
 * `forceCpuNodeNames` is a comma-separated list of node names kept on the CPU.
 */
export function webGpuOptions(params: Readonly<Record<string, string>>): ProviderOptions {
  const options: Record<string, OptionValue> = {};
  for (const [key, value] of Object.entries(params)) {
    const reader = Object.prototype.hasOwnProperty.call(WEBGPU_KEYS, key)
      ? WEBGPU_KEYS[key]
      : undefined;
    if (reader === undefined) {
      throw fail(
        'CONFIG_INVALID',
        `webgpu accelerator parameter "${key}" is not one onnxruntime-node reads; expected one of ` +
          `${Object.keys(WEBGPU_KEYS).join(', ')}`,
      );
    }
    setOwn(options, key, readParameter(key, value, reader));
  }
  return options;
}

const oneOf = (...values: string[]) =>
  choice(
    Object.fromEntries(values.map((v) => [v, v])),
    `one of ${values.map((v) => `"${v}"`).join(', ')}`,
  );

const WEBGPU_KEYS: Readonly<Record<string, ValueReader<OptionValue>>> = Object.freeze({
  enableRobustness: BOOL,
  preferredLayout: oneOf('NCHW', 'NHWC'),
  validationMode: oneOf('disabled', 'wgpuOnly', 'basic', 'full'),
  storageBufferCacheMode: oneOf('disabled', 'lazyRelease', 'simple', 'bucket'),
  forceCpuNodeNames: {
    read: (text: string) => (/^[^,]+(,[^,]+)*$/.test(text) ? text : undefined),
    expected: 'a comma-separated list of node names',
  },
});

export const EXECUTION_PROVIDERS: Readonly<Record<ExecutionProviderName, ExecutionProviderSpec>> =
  Object.freeze({
    tensorrt: {
      list: 'gpu_execution_accelerator',
      device: 'GPU',
      ortName: 'tensorrt',
      libraries: ['providers_shared', 'providers_cuda', 'providers_tensorrt'],
      options: tensorRtOptions,
      implicit: false,
      serialized: false,
      choosesDevice: true,
    },
    cuda: {
      list: 'gpu_execution_accelerator',
      device: 'GPU',
      ortName: 'cuda',
      libraries: ['providers_shared', 'providers_cuda'],
      options: cudaOptions,
      implicit: true,
      serialized: false,
      choosesDevice: true,
    },
    webgpu: {
      list: 'gpu_execution_accelerator',
      device: 'GPU',
      ortName: 'webgpu',
      // Bundled in the npm package's binding (Dawn, over Vulkan on Linux).
      libraries: [],
      options: webGpuOptions,
      implicit: false,
      serialized: true,
      choosesDevice: false,
    },
    openvino: {
      list: 'cpu_execution_accelerator',
      device: 'CPU',
      ortName: 'openvino',
      libraries: null,
      options: openVinoOptions,
      implicit: false,
      serialized: false,
      choosesDevice: false,
    },
    cpu: {
      list: null,
      device: 'CPU',
      ortName: 'cpu',
      libraries: [],
      options: () => ({}),
      implicit: false,
      serialized: false,
      choosesDevice: false,
    },
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
