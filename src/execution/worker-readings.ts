// A model-instance worker's side of its readings (messages.ts's WorkerReadings): its heap, posted
// once when the worker is ready and then after a run whenever the main thread's metrics tick has
// moved. The check is one load from shared memory per run: a clock read per run cost 0.1-0.25 µs
// on a VM whose clock source is not in the vDSO, while the load costs nothing measurable.

import { threadId } from 'node:worker_threads';
import type { WorkerReadings } from './messages.js';
import { heapUsedBytes } from '../metrics/thread-sampler.js';

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
