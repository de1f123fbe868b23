// The plain-data plan a worker turns into an ORT InferenceSession: built in the main thread from the
// model's OrtParameters (see `build-session-plan.ts`), logged at start-up, sent as workerData.

import type { ProviderSettings } from '../../config/accelerators.js';
import type { ExecutionMode, GraphOptimizationLevel } from '../../config/ort-parameters.js';

/** One execution provider of one instance: its settings, and its device for GPU providers. */
export interface ExecutionProviderPlan extends ProviderSettings {
  readonly deviceId?: number;
}

export interface OrtSessionPlan {
  readonly intraOpNumThreads: number;
  readonly interOpNumThreads: number;
  readonly executionMode: ExecutionMode;
  readonly graphOptimizationLevel: GraphOptimizationLevel;
  readonly enableCpuMemArena: boolean;
  readonly enableMemPattern: boolean;
  /** ORT session config entries (`session.*` keys), e.g. session.intra_op.allow_spinning. */
  readonly configEntries: Readonly<Record<string, string>>;
  /** In priority order; CPU is always last as the fallback. */
  readonly executionProviders: readonly ExecutionProviderPlan[];
}

/**
 * One worker pool's worth of identical instances: a CPU group, or one GPU of a GPU group (built by
 * `buildInstanceGroupPlans`). Every worker in the pool creates its session from the same plan.
 */
export interface InstanceGroupPlan {
  /** Triton-style name: the group name (`mlp_0`), or `mlp_0_gpu1` for one GPU of a GPU group. */
  readonly instance: string;
  readonly count: number;
  readonly plan: OrtSessionPlan;
}
