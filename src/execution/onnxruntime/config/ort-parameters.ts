// What the onnxruntime backend reads from a model config beyond the core fields — the `parameters`
// map (ORT backend README "Model Config Options" and "Deprecated Parameters"), `optimization.graph`
// and `optimization.execution_accelerators` — read once, at load, into one frozen typed result.
// A bad value is CONFIG_INVALID naming the key; keys the backend does not read are kept and reported.
// It lives with the ORT backend's worker side, below the repository layer, because the session
// plan (build-session-plan.ts) and the thread budget read its result; the backend
// (repository/backends/onnxruntime/) calls it once per model.

import { fail } from '../../../errors.js';
import {
  acceleratorNamed,
  acceleratorsIn,
  EXECUTION_PROVIDERS,
  type AcceleratorList,
  type ExecutionProviderName,
  type ProviderOptions,
  type ProviderSettings,
} from './accelerators.js';
import { deepFreeze } from '../../../config/deep-freeze.js';
import type { ModelConfig } from '../../../config/model-config.js';
import {
  BOOL,
  choice,
  COUNT,
  TEXT,
  type OptionValue,
  type ValueReader,
} from '../../../config/parameter-value.js';

export type ExecutionMode = 'sequential' | 'parallel';
export type GraphOptimizationLevel = 'disabled' | 'basic' | 'extended' | 'all';

export interface OrtParameters {
  /** 0 = not set (Triton: "ORT picks a default"); thread-budget.ts decides what that means. */
  readonly intraOpThreadCount: number;
  readonly interOpThreadCount: number;
  readonly executionMode: ExecutionMode;
  readonly graphOptimizationLevel: GraphOptimizationLevel;
  /** ORT's defaults are both on; the config only ever turns them off (or restates the default). */
  readonly enableCpuMemArena: boolean;
  readonly enableMemPattern: boolean;
  /** Every `session.*` parameter, by key, passed to ORT as a session config entry. */
  readonly configEntries: Readonly<Record<string, string>>;
  /**
   * What a GPU instance registers first, in order: TensorRT when configured, then CUDA (the primary
   * GPU provider, or TensorRT's fallback; with the deprecated top-level CUDA keys applied), then
   * WebGPU when configured. CUDA comes without being named unless the config names only WebGPU.
   */
  readonly gpuProviders: readonly ProviderSettings[];
  /** What every instance registers after those: the configured CPU accelerators, then CPU. */
  readonly cpuProviders: readonly ProviderSettings[];
}

export interface ReadOrtParameters {
  readonly parameters: OrtParameters;
  /** Keys the backend does not read, and keys infernode accepts without applying, with why. */
  readonly warnings: readonly string[];
}

/** The top-level keys the backend reads, with the form each value must take. */
const KNOWN = {
  intra_op_thread_count: COUNT,
  inter_op_thread_count: COUNT,
  execution_mode: choice<ExecutionMode>(
    { '0': 'sequential', '1': 'parallel' },
    '"0" (sequential) or "1" (parallel)',
  ),
  enable_mem_arena: BOOL,
  enable_mem_pattern: BOOL,
  'memory.enable_memory_arena_shrinkage': TEXT,
  // infernode's shorthand for the ORT session entry session.intra_op.allow_spinning.
  intra_op_spinning: BOOL,
  // Named in ORT backend issues; accepted so a config using it loads (each instance still gets
  // its own session: sessions cannot be shared across worker threads).
  share_session_between_instances: BOOL,
  // Deprecated top-level CUDA EP options, still read by the ORT backend for GPU instances.
  cudnn_conv_algo_search: choice(
    { '0': 'EXHAUSTIVE', '1': 'HEURISTIC', '2': 'DEFAULT' },
    '"0", "1" or "2"',
  ),
  // Kept as text: the usual "no limit" value is SIZE_MAX, beyond a double's exact range.
  gpu_mem_limit: {
    read: (text: string) => (/^\d{1,20}$/.test(text) ? text : undefined),
    expected: 'a byte count',
  },
  arena_extend_strategy: choice({ '0': 'kNextPowerOfTwo', '1': 'kSameAsRequested' }, '"0" or "1"'),
  do_copy_in_default_stream: BOOL,
} satisfies Record<string, ValueReader<unknown>>;

type KnownKey = keyof typeof KNOWN;
type Values = { -readonly [K in KnownKey]?: NonNullable<ReturnType<(typeof KNOWN)[K]['read']>> };

/** The deprecated top-level keys that are CUDA EP options, in the order the backend applies them. */
const DEPRECATED_CUDA_KEYS = [
  'cudnn_conv_algo_search',
  'gpu_mem_limit',
  'arena_extend_strategy',
  'do_copy_in_default_stream',
] as const satisfies readonly KnownKey[];

/** The ORT session config entry `intra_op_spinning` is infernode's shorthand for. */
const SPINNING_ENTRY = 'session.intra_op.allow_spinning';

/** Keys the ORT backend knows that infernode accepts without applying, and why. */
const NOT_APPLIED: Readonly<Partial<Record<KnownKey, string>>> = {
  'memory.enable_memory_arena_shrinkage':
    'onnxruntime-node 1.30 has no run-option config entries, so arena shrinkage cannot be requested',
  share_session_between_instances:
    'each instance is a worker thread with its own session; sessions cannot be shared across threads',
};

const invalid = (message: string): Error => fail('CONFIG_INVALID', message);

const isKnown = (key: string): key is KnownKey => Object.prototype.hasOwnProperty.call(KNOWN, key);

/** A `session.*` key names an ORT session config entry; a bare "session." names nothing. */
const isSessionEntry = (key: string): boolean =>
  key.startsWith('session.') && key.length > 'session.'.length;

/**
 * Reads and checks everything the backend takes from `config`. Throws CONFIG_INVALID on the first
 * bad value: accelerator names, then the `parameters` map in its order, then the graph level, then
 * the accelerators' own parameters.
 */
export function readOrtParameters(config: ModelConfig): ReadOrtParameters {
  const gpu = namedAccelerators(config, 'gpu_execution_accelerator');
  const cpu = namedAccelerators(config, 'cpu_execution_accelerator');

  const values: Values = {};
  const entries: [string, string][] = [];
  const unused: string[] = [];
  for (const [key, { string_value: text }] of Object.entries(config.parameters)) {
    if (isSessionEntry(key)) {
      entries.push([key, text]);
    } else if (isKnown(key)) {
      const reader: ValueReader<unknown> = KNOWN[key];
      const value = reader.read(text);
      if (value === undefined) {
        throw invalid(
          `model '${config.name}': parameter "${key}" expects ${reader.expected}, got "${text}"`,
        );
      }
      (values as Record<string, unknown>)[key] = value;
    } else {
      unused.push(
        `model '${config.name}': parameter "${key}" is not used by the onnxruntime backend; it is kept but has no effect`,
      );
    }
  }
  const graphOptimizationLevel = graphLevel(config);

  const warnings = [...unused];
  for (const key of Object.keys(values).sort()) {
    const reason = NOT_APPLIED[key as KnownKey];
    if (reason !== undefined) warnings.push(`parameter "${key}" is not applied: ${reason}`);
  }

  // The shorthand stands for the entry; the entry itself, when also given, is more specific and wins.
  if (values.intra_op_spinning !== undefined && !entries.some(([key]) => key === SPINNING_ENTRY)) {
    entries.push([SPINNING_ENTRY, values.intra_op_spinning ? '1' : '0']);
  }
  const configEntries: Record<string, string> = {};
  for (const [key, text] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    configEntries[key] = text;
  }

  const gpus = gpuProviders(gpu, values);
  checkDeviceIds(config, gpus);
  const parameters: OrtParameters = {
    intraOpThreadCount: values.intra_op_thread_count ?? 0,
    interOpThreadCount: values.inter_op_thread_count ?? 0,
    executionMode: values.execution_mode ?? 'sequential',
    graphOptimizationLevel,
    enableCpuMemArena: values.enable_mem_arena ?? true,
    enableMemPattern: values.enable_mem_pattern ?? true,
    configEntries,
    gpuProviders: gpus,
    cpuProviders: [
      ...cpu.map((a) => ({ name: a.name, options: EXECUTION_PROVIDERS[a.name].options(a.params) })),
      { name: 'cpu', options: {} },
    ],
  };
  return deepFreeze({ parameters, warnings });
}

interface NamedAccelerator {
  readonly name: ExecutionProviderName;
  readonly params: Readonly<Record<string, string>>;
}

/** The accelerators of one list, each checked against the provider table. */
function namedAccelerators(config: ModelConfig, list: AcceleratorList): NamedAccelerator[] {
  const named = config.optimization?.execution_accelerators?.[list] ?? [];
  return named.map((a) => {
    const name = acceleratorNamed(list, a.name);
    if (name === undefined) {
      throw invalid(
        `unknown Execution Accelerator '${a.name}' is requested for ${config.name}; expected one of ${acceleratorsIn(list).join(', ')}`,
      );
    }
    return { name, params: a.parameters };
  });
}

/** Entries for one provider merge, later keys winning, as the backend applies them in turn. */
function gpuProviders(gpu: readonly NamedAccelerator[], values: Values): ProviderSettings[] {
  const merged = new Map<ExecutionProviderName, ProviderOptions>();
  for (const a of gpu) {
    merged.set(a.name, { ...merged.get(a.name), ...EXECUTION_PROVIDERS[a.name].options(a.params) });
  }
  // The implicit provider (CUDA) comes unless the config names GPU providers that need none: it is
  // TensorRT's fallback, and Triton's GPU provider when nothing is named. WebGPU alone is complete.
  const needsImplicit = gpu.length === 0 || gpu.some((a) => a.name === 'tensorrt');
  for (const name of acceleratorsIn('gpu_execution_accelerator')) {
    if (!EXECUTION_PROVIDERS[name].implicit || (!needsImplicit && !merged.has(name))) continue;
    // The backend applies the deprecated top-level keys after the accelerator's, so they win.
    const deprecated: Record<string, OptionValue> = {};
    for (const key of DEPRECATED_CUDA_KEYS) {
      const value = values[key];
      if (value !== undefined) deprecated[key] = value;
    }
    merged.set(name, { ...merged.get(name), ...deprecated });
  }
  return acceleratorsIn('gpu_execution_accelerator').flatMap((name) => {
    const options = merged.get(name);
    return options === undefined ? [] : [{ name, options }];
  });
}

/**
 * A provider that cannot choose its GPU (WebGPU) runs on the adapter the system offers first, so a
 * GPU group may list only device 0 for it: a config naming another GPU would silently run there.
 */
function checkDeviceIds(config: ModelConfig, providers: readonly ProviderSettings[]): void {
  const fixed = providers.find((p) => !EXECUTION_PROVIDERS[p.name].choosesDevice);
  if (fixed === undefined) return;
  for (const group of config.instance_group) {
    if (group.kind !== 'KIND_GPU') continue;
    const other = group.gpus.find((id) => id !== 0);
    if (other !== undefined) {
      throw invalid(
        `instance group "${group.name}" of ${config.name} lists gpu ${other}, but execution ` +
          `accelerator "${fixed.name}" cannot choose a GPU (onnxruntime-node runs it on the first ` +
          `adapter the system offers): list gpus: [ 0 ], or run one server per GPU`,
      );
    }
  }
}

/**
 * `optimization.graph.level` as the ORT backend maps it (onnxruntime.cc): absent or 0 -> all,
 * -1 -> basic, 1 -> extended, 2 -> disabled. The backend silently treats any other value as "all";
 * infernode rejects it, since it is almost certainly a typo for one of the four.
 */
/** `optimization.graph.level` as ORT's level; CONFIG_INVALID for any other value. */
export function graphLevel(config: Pick<ModelConfig, 'optimization'>): GraphOptimizationLevel {
  const level = config.optimization?.graph?.level ?? 0;
  switch (level) {
    case 0:
      return 'all';
    case -1:
      return 'basic';
    case 1:
      return 'extended';
    case 2:
      return 'disabled';
    default:
      throw invalid(`optimization.graph.level: expected -1, 0, 1 or 2, got ${String(level)}`);
  }
}
