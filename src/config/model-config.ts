// The completed, normalized model config: the JSON form of Triton's ModelConfig (snake_case field
// names, enums as names) for the fields infernode understands. `load-model-config.ts` produces it
// (parse -> autocomplete -> normalize -> validate) and deep-freezes it; nothing downstream reads
// config.pbtxt or process.env again. `/v2/models/{m}/config` serializes it with `toConfigJson`
// (config-json.ts): Triton's form, with 64-bit integer fields as JSON numbers.

import type { ConfigDataType } from '../tensor/datatypes.js';

export interface ModelTensorConfig {
  readonly name: string;
  readonly data_type: ConfigDataType;
  /** Dims without the batch dimension when max_batch_size > 0; -1 = variable. */
  readonly dims: readonly number[];
  readonly reshape?: { readonly shape: readonly number[] };
  readonly optional?: boolean;
  readonly format?: string;
  readonly label_filename?: string;
  readonly allow_ragged_batch?: boolean;
  readonly is_shape_tensor?: boolean;
}

export type InstanceKind = 'KIND_AUTO' | 'KIND_GPU' | 'KIND_CPU' | 'KIND_MODEL';

/** `instance_group.rate_limiter` (Triton's ModelRateLimiter), with the proto's defaults filled in. */
export interface RateLimiterConfig {
  readonly resources: readonly { name: string; global: boolean; count: number }[];
  /** Lower runs more often under contention; 0 counts as 1 (Triton's ScaledPriority). */
  readonly priority: number;
}

export interface InstanceGroupConfig {
  readonly name: string;
  readonly kind: InstanceKind;
  readonly count: number;
  /** Only when config.pbtxt has one (Triton prints the message only then). */
  readonly rate_limiter?: RateLimiterConfig;
  readonly gpus: readonly number[];
}

export interface ExecutionAcceleratorConfig {
  readonly name: string;
  readonly parameters: Readonly<Record<string, string>>;
}

export interface OptimizationConfig {
  /** ORT mapping (Triton ORT backend): 0 all, -1 basic, 1 extended, 2 disabled; others all. */
  readonly graph?: { readonly level: number };
  readonly execution_accelerators?: {
    readonly gpu_execution_accelerator: readonly ExecutionAcceleratorConfig[];
    readonly cpu_execution_accelerator: readonly ExecutionAcceleratorConfig[];
  };
  /** Triton's normalization always sets these (enable: true unless config.pbtxt says otherwise). */
  readonly input_pinned_memory?: { readonly enable: boolean };
  readonly output_pinned_memory?: { readonly enable: boolean };
}

export type VersionPolicy =
  | { readonly latest: { readonly num_versions: number } }
  | { readonly all: Record<string, never> }
  | { readonly specific: { readonly versions: readonly number[] } };

export interface QueuePolicyConfig {
  readonly timeout_action: 'REJECT' | 'DELAY';
  readonly default_timeout_microseconds: number;
  readonly allow_timeout_override: boolean;
  readonly max_queue_size: number;
}

export interface DynamicBatchingConfig {
  readonly preferred_batch_size: readonly number[];
  readonly max_queue_delay_microseconds: number;
  readonly preserve_ordering: boolean;
  readonly priority_levels: number;
  readonly default_priority_level: number;
  readonly default_queue_policy?: QueuePolicyConfig;
  readonly priority_queue_policy: Readonly<Record<string, QueuePolicyConfig>>;
}

export type SequenceControlKind =
  | 'CONTROL_SEQUENCE_START'
  | 'CONTROL_SEQUENCE_READY'
  | 'CONTROL_SEQUENCE_END'
  | 'CONTROL_SEQUENCE_CORRID';

/**
 * One control of a `control_input`. Boolean kinds carry exactly one false/true pair (false first);
 * CORRID carries `data_type` (the correlation id's tensor type) instead.
 */
export interface SequenceControlConfig {
  readonly kind: SequenceControlKind;
  readonly int32_false_true: readonly number[];
  readonly fp32_false_true: readonly number[];
  readonly bool_false_true: readonly boolean[];
  readonly data_type?: ConfigDataType;
}

export interface SequenceControlInputConfig {
  readonly name: string;
  readonly control: readonly SequenceControlConfig[];
}

export interface SequenceInitialStateConfig {
  readonly name: string;
  readonly data_type: ConfigDataType;
  readonly dims: readonly number[];
  readonly zero_data?: boolean;
  /** Read from `<model>/initial_state/<data_file>`. */
  readonly data_file?: string;
}

/** Implicit state: the model's `output_name` of step i is fed as its `input_name` at step i+1. */
export interface SequenceStateConfig {
  readonly input_name: string;
  readonly output_name: string;
  readonly data_type: ConfigDataType;
  /** Without the batch dim. */
  readonly dims: readonly number[];
  readonly initial_state: readonly SequenceInitialStateConfig[];
}

export interface SequenceDirectConfig {
  readonly max_queue_delay_microseconds: number;
  readonly minimum_slot_utilization: number;
}

export interface SequenceOldestConfig {
  readonly max_candidate_sequences: number;
  readonly preferred_batch_size: readonly number[];
  readonly max_queue_delay_microseconds: number;
  readonly preserve_ordering: boolean;
}

/** Exactly one of `direct` and `oldest` is set after normalization (direct when neither was). */
export interface SequenceBatchingConfig {
  /** 0 in config.pbtxt becomes Triton's default, 1,000,000. */
  readonly max_sequence_idle_microseconds: number;
  readonly control_input: readonly SequenceControlInputConfig[];
  readonly state: readonly SequenceStateConfig[];
  readonly direct?: SequenceDirectConfig;
  readonly oldest?: SequenceOldestConfig;
}

/** One step of an ensemble: which model runs, fed and read through ensemble tensor names. */
export interface EnsembleStepConfig {
  readonly model_name: string;
  /** -1: the model's latest serving version. */
  readonly model_version: number;
  /** The step model's input name -> the ensemble tensor it reads. */
  readonly input_map: Readonly<Record<string, string>>;
  /** The step model's output name -> the ensemble tensor it writes. */
  readonly output_map: Readonly<Record<string, string>>;
}

export interface EnsembleSchedulingConfig {
  readonly step: readonly EnsembleStepConfig[];
}

export interface WarmupInputConfig {
  readonly data_type: ConfigDataType;
  readonly dims: readonly number[];
  readonly zero_data?: boolean;
  readonly random_data?: boolean;
  readonly input_data_file?: string;
}

export interface ModelWarmupConfig {
  readonly name: string;
  /** >= 1: samples with batch_size 0 are dropped (Triton skips them), with a warning. */
  readonly batch_size: number;
  readonly inputs: Readonly<Record<string, WarmupInputConfig>>;
  /** >= 1: an unset count (0) means once, as model_config.proto documents. */
  readonly count: number;
}

export interface ModelConfig {
  readonly name: string;
  readonly platform: string;
  readonly backend: string;
  readonly version_policy: VersionPolicy;
  readonly max_batch_size: number;
  readonly input: readonly ModelTensorConfig[];
  readonly output: readonly ModelTensorConfig[];
  readonly instance_group: readonly InstanceGroupConfig[];
  readonly default_model_filename: string;
  readonly optimization?: OptimizationConfig;
  readonly dynamic_batching?: DynamicBatchingConfig;
  readonly sequence_batching?: SequenceBatchingConfig;
  /** Set exactly when `platform` is "ensemble". */
  readonly ensemble_scheduling?: EnsembleSchedulingConfig;
  readonly model_warmup: readonly ModelWarmupConfig[];
  /** Whether a request may get zero or several responses (only JavaScript models may). */
  readonly model_transaction_policy: { readonly decoupled: boolean };
  /**
   * `response_cache { enable }`: answers of this model are kept in the server's response cache
   * (`--cache-config`). Present exactly when the config sets it, so /config shows it as Triton does.
   */
  readonly response_cache?: { readonly enable: boolean };
  /** ModelParameter map: values are always strings (`{ string_value }` in the proto). */
  readonly parameters: Readonly<Record<string, { readonly string_value: string }>>;
  readonly metric_tags?: Readonly<Record<string, string>>;
}
