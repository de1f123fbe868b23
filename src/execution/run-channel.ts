// What a backend gives each of its instances (model-instance.ts supervises the worker, the backend
// carries its runs): the worker entry and its data, the bounds on its start and runs, and one run
// channel per worker, the hand-off of runs to it. ONNX Runtime workers take runs over the doorbell
// (onnxruntime/ort-workers.ts), or as piscina tasks; JavaScript workers as piscina tasks, with
// their instance channel carrying BLS calls and decoupled responses (javascript/js-workers.ts).

import type { Piscina } from 'piscina';
import type { RunRequest, RunResponse, WorkerInit } from './messages.js';
import type { RunScope } from './run-scope.js';

/** One backend's workers, as its instances start them. */
export interface WorkerBackend {
  /** The compiled worker entry (one per backend, in workers/). */
  readonly workerFile: string;
  /** The worker's workerData: the common fields, plus what this backend's worker needs. */
  workerData(common: WorkerInit): WorkerInit;
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
