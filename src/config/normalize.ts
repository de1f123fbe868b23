// Normalize: a raw (parsed, autocompleted) config -> the complete ModelConfig, with every default Triton
// fills in (core NormalizeModelConfig and NormalizeInstanceGroup) made explicit, so nothing downstream
// applies a default of its own. Values that cannot be represented at all (a missing data_type) fail
// here; every other rule is checked by validate.ts on the result. The instance defaults that differ
// by backend (none for an ensemble, never a GPU for JavaScript, two CPU instances for ONNX Runtime)
// are the backend's (`BackendConfigRules.instances`).

import { fromConfigType, type ConfigDataType } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import type {
  RawDataType,
  RawModelConfig,
  RawModelInput,
  RawModelInstanceGroup,
  RawModelOptimizationPolicy,
  RawModelOutput,
  RawModelQueuePolicy,
  RawModelSequenceBatching,
  RawModelVersionPolicy,
  RawModelWarmup,
} from './generated/model-config-schema.js';
import type {
  DynamicBatchingConfig,
  InstanceGroupConfig,
  ModelConfig,
  ModelTensorConfig,
  ModelWarmupConfig,
  OptimizationConfig,
  QueuePolicyConfig,
  SequenceBatchingConfig,
  VersionPolicy,
  WarmupInputConfig,
} from './model-config.js';
import { rulesFor, type BackendRuleList } from './backend-rules.js';

export interface NormalizeOptions {
  /** GPU ids this process can use (Triton's "supported GPUs"); none by default. */
  readonly availableGpus?: readonly number[];
  /** The backends the server runs (the registry's list), whose instance defaults apply. */
  readonly backends: BackendRuleList;
}

export interface NormalizeResult {
  readonly config: ModelConfig;
  readonly warnings: readonly string[];
}

export function normalizeModelConfig(
  raw: RawModelConfig,
  options: NormalizeOptions,
): NormalizeResult {
  const name = raw.name ?? '';
  const maxBatchSize = raw.max_batch_size ?? 0;
  const warnings: string[] = [];
  const config: ModelConfig = {
    name,
    platform: raw.platform ?? '',
    backend: raw.backend ?? '',
    version_policy: versionPolicy(raw.version_policy),
    max_batch_size: maxBatchSize,
    input: (raw.input ?? []).map((t) => input(name, t)),
    output: (raw.output ?? []).map((t) => output(name, t)),
    instance_group: instanceGroups(raw, options.availableGpus ?? [], options.backends),
    default_model_filename: raw.default_model_filename ?? '',
    optimization: optimization(raw.optimization),
    ...(raw.dynamic_batching !== undefined && {
      dynamic_batching: dynamicBatching(raw.dynamic_batching, maxBatchSize),
    }),
    ...(raw.sequence_batching !== undefined && {
      sequence_batching: sequenceBatching(name, raw.sequence_batching),
    }),
    ...(raw.ensemble_scheduling !== undefined && {
      ensemble_scheduling: {
        step: (raw.ensemble_scheduling.step ?? []).map((st) => ({
          model_name: st.model_name ?? '',
          model_version: st.model_version ?? -1,
          input_map: mapValues(st.input_map ?? {}, (v) => v),
          output_map: mapValues(st.output_map ?? {}, (v) => v),
        })),
      },
    }),
    model_warmup: warmups(name, raw.model_warmup ?? [], warnings),
    // Triton's /config always shows the policy (decoupled false when the config says nothing).
    model_transaction_policy: { decoupled: raw.model_transaction_policy?.decoupled === true },
    ...(raw.response_cache !== undefined && {
      response_cache: { enable: raw.response_cache.enable === true },
    }),
    parameters: mapValues(raw.parameters ?? {}, (p) => ({ string_value: p.string_value ?? '' })),
    ...(Object.keys(raw.metric_tags ?? {}).length > 0 && { metric_tags: { ...raw.metric_tags } }),
  };
  return { config, warnings };
}

/** Absent -> latest { num_versions: 1 }. An empty `version_policy {}` loads all versions, as in Triton. */
function versionPolicy(p: RawModelVersionPolicy | undefined): VersionPolicy {
  if (p === undefined) return { latest: { num_versions: 1 } };
  if (p.latest !== undefined) return { latest: { num_versions: p.latest.num_versions ?? 0 } };
  if (p.specific !== undefined) return { specific: { versions: [...(p.specific.versions ?? [])] } };
  return { all: {} };
}

function dataType(v: RawDataType | undefined, what: string, model: string): ConfigDataType {
  const d = v === undefined ? undefined : fromConfigType(v);
  if (d === undefined)
    throw fail('CONFIG_INVALID', `${what} must specify 'data_type' for ${model}`);
  return v as ConfigDataType;
}

function input(model: string, t: RawModelInput): ModelTensorConfig {
  return {
    name: t.name ?? '',
    data_type: dataType(t.data_type, `model input '${t.name ?? ''}'`, model),
    format: t.format ?? 'FORMAT_NONE',
    dims: [...(t.dims ?? [])],
    ...(t.reshape !== undefined && { reshape: { shape: [...(t.reshape.shape ?? [])] } }),
    allow_ragged_batch: t.allow_ragged_batch ?? false,
    optional: t.optional ?? false,
  };
}

function output(model: string, t: RawModelOutput): ModelTensorConfig {
  return {
    name: t.name ?? '',
    data_type: dataType(t.data_type, `model output '${t.name ?? ''}'`, model),
    dims: [...(t.dims ?? [])],
    ...(t.reshape !== undefined && { reshape: { shape: [...(t.reshape.shape ?? [])] } }),
    ...((t.label_filename ?? '') !== '' && { label_filename: t.label_filename }),
  };
}

/**
 * Core's NormalizeInstanceGroup with no backend-preferred groups (the ORT backend declares none):
 * none for a backend without instances of its own (an ensemble); no group -> one group named after
 * the model; unnamed groups -> `<model>_<index>`; KIND_AUTO -> GPU when the backend may use one,
 * GPUs are available and every listed one exists, else CPU; count < 1 -> the backend's
 * `defaultCpuCount` for KIND_CPU (ORT's SetDefaultInstanceCount: 2), else 1; KIND_GPU without gpus
 * -> every available GPU. A backend no rules name (refused by validation) gets GPU-capable groups
 * of one instance.
 */
function instanceGroups(
  raw: RawModelConfig,
  gpus: readonly number[],
  backends: BackendRuleList,
): InstanceGroupConfig[] {
  const model = raw.name ?? '';
  const rules = rulesFor(backends, raw);
  if (rules !== undefined && rules.instances === undefined) return [];
  const groups: RawModelInstanceGroup[] =
    (raw.instance_group ?? []).length > 0 ? [...(raw.instance_group ?? [])] : [{ name: model }];
  const available = new Set(gpus);
  return groups.map((g, i) => {
    let kind = g.kind ?? 'KIND_AUTO';
    const listed = g.gpus ?? [];
    if (kind === 'KIND_AUTO') {
      const gpu =
        (rules?.instances?.gpu ?? true) &&
        available.size > 0 &&
        listed.every((id) => available.has(id));
      kind = gpu ? 'KIND_GPU' : 'KIND_CPU';
    }
    let count = g.count ?? 0;
    if (count < 1) count = kind === 'KIND_CPU' ? (rules?.instances?.defaultCpuCount ?? 1) : 1;
    const rl = g.rate_limiter;
    return {
      name: g.name ? g.name : `${model}_${i}`,
      kind,
      count,
      ...(rl !== undefined && {
        rate_limiter: {
          resources: (rl.resources ?? []).map((r) => ({
            name: r.name ?? '',
            global: r.global ?? false,
            count: r.count ?? 0,
          })),
          priority: rl.priority ?? 0,
        },
      }),
      gpus:
        kind === 'KIND_GPU' && listed.length === 0 ? [...gpus].sort((a, b) => a - b) : [...listed],
    };
  });
}

/** Triton sets both pinned-memory flags to true unless config.pbtxt has the message. */
function optimization(o: RawModelOptimizationPolicy | undefined): OptimizationConfig {
  const ea = o?.execution_accelerators;
  const accel = (list: NonNullable<typeof ea>['gpu_execution_accelerator']) =>
    (list ?? []).map((a) => ({ name: a.name ?? '', parameters: { ...(a.parameters ?? {}) } }));
  return {
    ...(o?.graph !== undefined && { graph: { level: o.graph.level ?? 0 } }),
    ...(ea !== undefined && {
      execution_accelerators: {
        gpu_execution_accelerator: accel(ea.gpu_execution_accelerator),
        cpu_execution_accelerator: accel(ea.cpu_execution_accelerator),
      },
    }),
    input_pinned_memory: {
      enable: o?.input_pinned_memory?.enable ?? o?.input_pinned_memory === undefined,
    },
    output_pinned_memory: {
      enable: o?.output_pinned_memory?.enable ?? o?.output_pinned_memory === undefined,
    },
  };
}

function queuePolicy(p: RawModelQueuePolicy): QueuePolicyConfig {
  return {
    timeout_action: p.timeout_action ?? 'REJECT',
    default_timeout_microseconds: p.default_timeout_microseconds ?? 0,
    allow_timeout_override: p.allow_timeout_override ?? false,
    max_queue_size: p.max_queue_size ?? 0,
  };
}

/** Proto defaults, plus Triton's: no preferred_batch_size -> [max_batch_size] when batching. */
function dynamicBatching(
  d: NonNullable<RawModelConfig['dynamic_batching']>,
  maxBatchSize: number,
): DynamicBatchingConfig {
  const preferred = d.preferred_batch_size ?? [];
  return {
    preferred_batch_size:
      preferred.length > 0 ? [...preferred] : maxBatchSize > 0 ? [maxBatchSize] : [],
    max_queue_delay_microseconds: d.max_queue_delay_microseconds ?? 0,
    preserve_ordering: d.preserve_ordering ?? false,
    priority_levels: d.priority_levels ?? 0,
    default_priority_level: d.default_priority_level ?? 0,
    ...(d.default_queue_policy !== undefined && {
      default_queue_policy: queuePolicy(d.default_queue_policy),
    }),
    priority_queue_policy: mapValues(d.priority_queue_policy ?? {}, queuePolicy),
  };
}

/** Triton's default idle time when the config leaves it 0 (sequence_batch_scheduler.cc). */
export const DEFAULT_SEQUENCE_IDLE_US = 1_000_000;

/** Proto defaults; no strategy means `direct { }`, as in Triton. */
function sequenceBatching(model: string, s: RawModelSequenceBatching): SequenceBatchingConfig {
  const idle = s.max_sequence_idle_microseconds ?? 0;
  return {
    max_sequence_idle_microseconds: idle === 0 ? DEFAULT_SEQUENCE_IDLE_US : idle,
    control_input: (s.control_input ?? []).map((c) => ({
      name: c.name ?? '',
      control: (c.control ?? []).map((k) => ({
        kind: k.kind ?? 'CONTROL_SEQUENCE_START',
        int32_false_true: [...(k.int32_false_true ?? [])],
        fp32_false_true: [...(k.fp32_false_true ?? [])],
        bool_false_true: [...(k.bool_false_true ?? [])],
        ...(k.data_type !== undefined &&
          k.data_type !== 'TYPE_INVALID' && {
            data_type: dataType(k.data_type, `control input '${c.name ?? ''}'`, model),
          }),
      })),
    })),
    state: (s.state ?? []).map((st) => ({
      input_name: st.input_name ?? '',
      output_name: st.output_name ?? '',
      data_type: dataType(st.data_type, `state '${st.input_name ?? ''}'`, model),
      dims: [...(st.dims ?? [])],
      initial_state: (st.initial_state ?? []).map((i) => ({
        name: i.name ?? '',
        data_type: dataType(i.data_type, `initial state '${i.name ?? ''}'`, model),
        dims: [...(i.dims ?? [])],
        ...(i.zero_data !== undefined && { zero_data: i.zero_data }),
        ...(i.data_file !== undefined && { data_file: i.data_file }),
      })),
    })),
    ...(s.oldest !== undefined
      ? {
          oldest: {
            max_candidate_sequences: s.oldest.max_candidate_sequences ?? 0,
            preferred_batch_size: [...(s.oldest.preferred_batch_size ?? [])],
            max_queue_delay_microseconds: s.oldest.max_queue_delay_microseconds ?? 0,
            preserve_ordering: s.oldest.preserve_ordering ?? false,
          },
        }
      : {
          direct: {
            max_queue_delay_microseconds: s.direct?.max_queue_delay_microseconds ?? 0,
            minimum_slot_utilization: s.direct?.minimum_slot_utilization ?? 0,
          },
        }),
  };
}

function warmups(
  model: string,
  list: readonly RawModelWarmup[],
  warnings: string[],
): ModelWarmupConfig[] {
  const out: ModelWarmupConfig[] = [];
  for (const w of list) {
    const name = w.name ?? '';
    if ((w.batch_size ?? 0) === 0) {
      warnings.push(`model '${model}': warmup sample '${name}' has batch_size 0 and is skipped`);
      continue;
    }
    const inputs = mapValues(w.inputs ?? {}, (i, key): WarmupInputConfig => ({
      data_type: dataType(i.data_type, `warmup sample '${name}' input '${key}'`, model),
      dims: [...(i.dims ?? [])],
      ...(i.zero_data !== undefined && { zero_data: i.zero_data }),
      ...(i.random_data !== undefined && { random_data: i.random_data }),
      ...(i.input_data_file !== undefined && { input_data_file: i.input_data_file }),
    }));
    out.push({ name, batch_size: w.batch_size ?? 0, inputs, count: Math.max(w.count ?? 0, 1) });
  }
  return out;
}

/** A record with each value mapped; keys become own properties even when named `__proto__`. */
function mapValues<V, W>(
  rec: Readonly<Record<string, V>>,
  fn: (v: V, key: string) => W,
): Record<string, W> {
  const out: Record<string, W> = {};
  for (const [k, v] of Object.entries(rec)) {
    Object.defineProperty(out, k, {
      value: fn(v, k),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
