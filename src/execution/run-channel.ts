// What a backend gives each of its instances (model-instance.ts supervises the worker, the backend
// carries its runs): the check of its instance groups before any worker starts, the worker entry and
// its data (typed per backend: an ORT worker's carries its session plan, a JavaScript worker's no ORT
// field), the bounds on its start and runs, and one run channel per worker, the hand-off of runs to it. ONNX Runtime workers take runs over the doorbell
// (onnxruntime/ort-workers.ts), or as piscina tasks; JavaScript workers as piscina tasks, with
// their instance channel carrying BLS calls and decoupled responses (javascript/js-workers.ts).

import type { Piscina } from 'piscina';
import type { RunRequest, RunResponse, WorkerInit } from './messages.js';
import type { RunScope } from './run-scope.js';

/**
 * One worker pool's worth of identical instances, as a backend plans them: a CPU group, or one GPU
 * of a GPU group. A backend's plan adds what its workers need (ORT: the session plan,
 * onnxruntime/session-plan.ts's `InstanceGroupPlan`).
 */
export interface InstanceGroup {
  /** Triton-style name: the group name (`mlp_0`), or `mlp_0_gpu1` for one GPU of a GPU group. */
  readonly instance: string;
  readonly count: number;
}

/** One backend's workers, as its instances start them; `G` is its plan of one instance group. */
export interface WorkerBackend<G extends InstanceGroup = InstanceGroup> {
  /** The compiled worker entry (one per backend, in workers/). */
  readonly workerFile: string;
  /**
   * Checks the groups before any worker starts; throws to fail the start (ORT: every provider a
   * plan names is installed, else PROVIDER_UNAVAILABLE).
   */
  checkGroups(groups: readonly G[]): void;
  /** A worker's workerData: the common fields, plus what this backend's worker needs from `group`. */
  workerData(common: WorkerInit, group: G): WorkerInit;
  /**
   * Bounds on the worker's start and runs, past which it is terminated. Undefined for workers that
   * must never be terminated while busy: an ORT worker inside session creation or session.run
   * would abort the whole process.
   */
  readonly limits: WorkerLimits | undefined;
  /** Before its pool is destroyed, each worker runs FINALIZE_TASK (the model's finalize()). */
  readonly finalizes: boolean;
  /**
   * The worker reads a run's inputs only until it answers, so the caller may reuse their memory;
   * false when the model's code may keep views of them.
   */
  readonly inputsFreeAfterRun: boolean;
  /** The run channel of a worker just started in `piscina` (its only thread). */
  openChannel(piscina: Piscina, where: string): RunChannel;
  /** A worker's thread (`threadId` while it ran) has ended: free what it may have held. */
  threadEnded?(threadId: number): void;
}

/** A worker's bounds, in milliseconds (the config parameters name them in messages). */
export interface WorkerLimits {
  /** From start to ready: the module's import, initialize() and the warmup. */
  readonly startMs: number;
  /** One run (and finalize()). */
  readonly runMs: number;
}

/**
 * The hand-off of runs to one worker, from its start until it is lost or destroyed. The instance
 * gives it one run at a time, only while the worker is ready.
 */
export interface RunChannel {
  /** A message the worker posted that belongs to the channel; true when it was taken. */
  take(message: unknown, threadId: number): boolean;
  /** The worker's session is ready: runs follow. */
  sessionReady(): void;
  /**
   * Hands `req` (the instance's run number `id`) to the worker. `task` settles with the reply, or
   * rejects when the worker dies or its handler throws; `done` is called once the instance is
   * through with the run (answered, failed or abandoned).
   */
  run(
    req: RunRequest,
    id: number,
    scope: RunScope | undefined,
    transferList: ArrayBuffer[] | undefined,
  ): { readonly task: Promise<RunResponse>; done(): void };
  /** Asks the idle worker to give memory back after a large run (reclaim-after-large.ts). */
  reclaim(): Promise<unknown>;
  /** The worker is lost (or being retired): fail what waits on the channel, at once. */
  close(why: string): void;
  /** The instance is destroyed, its worker idle between runs: stop serving, then close. */
  stop(why: string): Promise<void>;
}
