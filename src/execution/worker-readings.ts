// A model-instance worker's readings, both sides of them (messages.ts's WorkerReadings):
// - the worker's side (`workerReadings`): its heap, posted once when the worker is ready and then
//   after a run whenever the main thread's metrics tick has moved. The check is one load from
//   shared memory per run: a clock read per run cost 0.1-0.25 µs on a VM whose clock source is not
//   in the vDSO, while the load costs nothing measurable;
// - the main thread's side (`InstanceReadings`, one per instance): the heap the current worker last
//   posted, and its busy share, added up from the runs' own timings (a few additions per run and no
//   clock read on the main thread), which its pool reads once per metrics interval.

import { threadId } from 'node:worker_threads';
import type { RunTiming, WorkerReadings } from './messages.js';
import { clamp01, heapUsedBytes, type ThreadReading } from '../metrics/thread-sampler.js';

/** `post`: the worker's parentPort. Returns what to call after each run (a no-op without metrics). */
export function workerReadings(
  tick: SharedArrayBuffer | undefined,
  post: (m: WorkerReadings) => void,
): () => void {
  if (tick === undefined) return () => undefined;
  const ticks = new Int32Array(tick);
  // Not a value the counter takes before it wraps: the first call posts.
  let seen = Number.NaN;
  return () => {
    // A plain read: a stale value only delays the reading to a later run.
    const now = ticks[0];
    if (now === seen) return;
    seen = now ?? 0;
    post({ type: 'infernode:readings', threadId, heapUsedBytes: heapUsedBytes() });
  };
}

/** What the main thread knows of one instance's workers, for infernode_thread_* figures. */
export class InstanceReadings {
  /** Nanoseconds its workers have spent on runs (input, session.run, output). */
  #busyNs = 0;
  /** The current worker's V8 heap in use, as it last posted it. */
  #heapUsedBytes: number | undefined;
  /** The busy nanoseconds and the time at the previous `reading()`. */
  #last: { readonly busyNs: number; readonly atNs: number } | undefined;

  /** A run its worker answered, by the reply's own timing. */
  ran(t: RunTiming): void {
    this.#busyNs += t.inputNs + t.inferNs + t.outputNs;
  }

  /**
   * True when `m` (a message from the instance's pool) is a worker's readings; its heap is kept
   * when it comes from `threadId`, the instance's current worker (undefined: none is current).
   */
  take(m: unknown, threadId: number | undefined): boolean {
    if (!isWorkerReadings(m)) return false;
    if (threadId !== undefined && m.threadId === threadId) this.#heapUsedBytes = m.heapUsedBytes;
    return true;
  }

  /** The busy share since the previous call (0 on the first) and the last heap, at `atNs`. */
  reading(atNs: number): ThreadReading {
    const last = this.#last;
    this.#last = { busyNs: this.#busyNs, atNs };
    // A run is counted when it ends: one longer than the interval reads 0 while it runs, then 1.
    const utilization =
      last === undefined ? 0 : clamp01((this.#busyNs - last.busyNs) / (atNs - last.atNs));
    const heap = this.#heapUsedBytes;
    return { utilization, ...(heap !== undefined && { heapUsedBytes: heap }) };
  }
}

function isWorkerReadings(m: unknown): m is WorkerReadings {
  return (
    typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'infernode:readings'
  );
}
