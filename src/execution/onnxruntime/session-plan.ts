// The plain-data plan a worker turns into an ORT InferenceSession: built in the main thread from the
// model's OrtParameters (see `build-session-plan.ts`), logged at start-up, sent as workerData (the
// ORT worker's `OrtWorkerInit`, which no other backend's worker gets).

import type { ProviderSettings } from './config/accelerators.js';
import type { ExecutionMode, GraphOptimizationLevel } from './config/ort-parameters.js';
import type { WorkerInit } from '../messages.js';
import type { InstanceGroup } from '../run-channel.js';
import type { OrtLogSeverity } from './ort-log-level.js';

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
export interface InstanceGroupPlan extends InstanceGroup {
  readonly plan: OrtSessionPlan;
}

/** workerData of an ORT worker (workers/ort-worker.ts): the common fields and its own. */
export interface OrtWorkerInit extends WorkerInit {
  readonly plan: OrtSessionPlan;
  /**
   * For an instance of a serialized GPU provider (WebGPU): its device's lock (device-lock.ts), held
   * across session creation, each run and the session's release. Absent for every other instance.
   */
  readonly gpuLock?: GpuLockInit;
  /** ORT's log severity for the session and the thread's ORT environment; absent: ORT's default. */
  readonly logSeverity?: OrtLogSeverity;
}

export interface GpuLockInit {
  readonly deviceId: number;
  readonly buffer: SharedArrayBuffer;
  /** The test-only stand-in (test-gpu-target.ts): its record file, when it is on. */
  readonly standInRecord?: string;
}
