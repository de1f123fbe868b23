// The contract between an instance pool and each model instance it holds (model-instance.ts): the
// instance's lifecycle states, and what the instance needs from its pool (fixed facts, the clock of
// its restart back-off, and the callbacks by which it reports).

import type { WorkerEvent, WorkerInit } from './messages.js';
import type { ModelInstance } from './model-instance.js';
import type { RestartClock } from './restart-backoff.js';
import type { WorkerBackend } from './run-channel.js';

/** Where an instance is in its lifecycle; only a 'ready' instance is given runs. */
export type InstanceState =
  /**
   * A worker is starting: creating its session. An ORT worker is never terminated in this state; a
   * JavaScript one is, once it outlives its backend's `limits.startMs`.
   */
  | 'loading'
  /** Its session exists and it takes runs, one at a time. */
  | 'ready'
  /** No worker: the next one starts after a back-off delay. */
  | 'waiting'
  /** Closed: it starts no worker again. */
  | 'closed';

export type SessionReadyEvent = Extract<WorkerEvent, { type: 'infernode:session-ready' }>;

/** What an instance needs from its pool: fixed facts and the pool's callbacks. */
export interface InstanceContext {
  readonly model: string;
  readonly version: number;
  /** The instance group's name (`simple_0`), which load and warmup messages name. */
  readonly group: string;
  /** The worker entry, its bounds and its run hand-off. */
  readonly backend: WorkerBackend;
  /** The workerData of every worker of the group (the backend's `workerData` has extended it). */
  readonly workerData: WorkerInit;
  /**
   * The restart back-off's time: its delays, and how long a worker stayed up. The real clock
   * (restart-backoff.ts's RESTART_CLOCK, whose timers do not keep the process alive), or a test's.
   */
  readonly clock: RestartClock;
  /** Makes worker error text safe for a client: no absolute paths. */
  scrub(message: string): string;
  log(level: 'info' | 'error', msg: string): void;
  /** A session reported ready (`replacement`: not the instance's first worker). */
  sessionReady(instance: ModelInstance, event: SessionReadyEvent, replacement: boolean): void;
  /** State or business changed: the pool looks at readiness and waiting runs again. */
  changed(): void;
  /** A worker was started to replace a lost one (infernode_instance_restarts_total). */
  restarted(): void;
}
