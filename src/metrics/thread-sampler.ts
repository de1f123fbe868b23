// One thread's own readings for the per-thread metrics (thread-metrics.ts): event-loop utilization
// and delay, and the thread's V8 heap. Used by the main thread and each front-end thread, whose
// event loops turn; model-instance workers park in Atomics.wait between runs (doorbell.ts,
// piscina's wait loop), where no timer fires and event-loop figures mean nothing, so their
// utilization is their busy share, counted by the main thread from the runs' own timings
// (worker-readings.ts), and they send only their heap.

import { getHeapStatistics } from 'node:v8';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';

/** One thread's figures over the last metrics interval, as they cross to the main thread. */
export interface ThreadReading {
  /** Event-loop utilization (0..1) over the interval; a worker's busy share. */
  readonly utilization: number;
  /** p99 of the event-loop delay over the interval, in seconds; absent for workers. */
  readonly delayP99Seconds?: number;
  /** The thread's V8 heap in use, in bytes. */
  readonly heapUsedBytes?: number;
}

/**
 * The event-loop delay sampling period. The monitor is a libuv timer on the thread: 20 ms costs
 * 50 wake-ups a second (a few µs each), and a p99 finer than that is noise for an operator.
 */
const DELAY_RESOLUTION_MS = 20;

/** This thread's V8 heap in use (its own isolate's, in a worker). */
export function heapUsedBytes(): number {
  return getHeapStatistics().used_heap_size;
}

/** Samples the calling thread; `sample()` gives the figures since the previous call. */
export class LoopSampler {
  #elu = performance.eventLoopUtilization();
  readonly #delay: IntervalHistogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });

  constructor() {
    this.#delay.enable();
  }

  sample(): ThreadReading {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, this.#elu);
    this.#elu = now;
    // The monitor records the time between its timer's runs, the resolution included: the delay is
    // what is above it. With none recorded yet (an interval shorter than the resolution), none.
    const p99Ns = this.#delay.count > 0 ? this.#delay.percentile(99) : 0;
    const delayP99Seconds = Math.max(0, p99Ns / 1e9 - DELAY_RESOLUTION_MS / 1e3);
    this.#delay.reset();
    return { utilization: clamp01(utilization), delayP99Seconds, heapUsedBytes: heapUsedBytes() };
  }

  stop(): void {
    this.#delay.disable();
  }
}

export const clamp01 = (x: number): number =>
  Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
