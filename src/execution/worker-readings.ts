// A model-instance worker's side of its readings (messages.ts's WorkerReadings): its heap, posted
// once when the worker is ready and then after a run whenever --metrics-interval-ms has passed. One
// performance.now() per run, in the worker, is all it costs while no reading is due.

import { threadId } from 'node:worker_threads';
import type { WorkerReadings } from './messages.js';
import { heapUsedBytes } from '../metrics/thread-sampler.js';

/** `post`: the worker's parentPort. Returns what to call after each run (a no-op without metrics). */
export function workerReadings(
  intervalMs: number | undefined,
  post: (m: WorkerReadings) => void,
): () => void {
  if (intervalMs === undefined) return () => undefined;
  let due = 0;
  return () => {
    const now = performance.now();
    if (now < due) return;
    due = now + intervalMs;
    post({ type: 'infernode:readings', threadId, heapUsedBytes: heapUsedBytes() });
  };
}
