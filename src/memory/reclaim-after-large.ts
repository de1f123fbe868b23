// Giving back the memory of large requests. A request of hundreds of MiB leaves its body, its
// shared-memory blocks and the worker's copies behind as garbage held only by V8 objects; V8 frees
// such external memory at its next major GC, and an otherwise idle process may not run one for
// minutes (piscina workers wait in Atomics.wait between tasks, so not even their own timers run).
// Whoever drops a large buffer tells the reclaimer; once things have been quiet for `quietMs` (and
// at most `maxDelayMs` after the first notice, so a steady stream of large requests still gets
// collected), it runs one full GC on this thread and asks every instance that ran a large request
// to collect in its worker. Requests below the threshold never reach the timer: the small-request
// hot path pays one comparison.

import { collectGarbage } from './collect-garbage.js';

/** Buffers at least this large are worth a full GC once they are garbage. */
export const LARGE_GARBAGE_BYTES = 16 * 1024 * 1024;

/** The clock the reclaimer schedules with (tests inject a manual one). */
export interface ReclaimClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export interface ReclaimerOptions {
  readonly clock?: ReclaimClock;
  readonly quietMs?: number;
  readonly maxDelayMs?: number;
  readonly thresholdBytes?: number;
  /** The main thread's collection (default: a full V8 GC). */
  readonly collect?: () => void;
}

const realClock: ReclaimClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref(); // a pending reclaim never keeps the process alive
    return t;
  },
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class LargeGarbageReclaimer {
  readonly #clock: ReclaimClock;
  readonly #quietMs: number;
  readonly #maxDelayMs: number;
  readonly thresholdBytes: number;
  readonly #collect: () => void;
  /** Worker-side collections to request when the timer fires, one per instance. */
  readonly #workers = new Set<() => void>();
  #timer: unknown = undefined;
  /** When the first notice of the pending round arrived (undefined: no round pending). */
  #firstAt: number | undefined;

  constructor(options: ReclaimerOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#quietMs = options.quietMs ?? 1000;
    this.#maxDelayMs = options.maxDelayMs ?? 5000;
    this.thresholdBytes = options.thresholdBytes ?? LARGE_GARBAGE_BYTES;
    this.#collect = options.collect ?? collectGarbage;
  }

  /**
   * `bytes` of buffers have become (or are about to become) garbage; `worker`, when given, asks
   * the instance that held them to collect in its own thread. Below the threshold: nothing.
   */
  note(bytes: number, worker?: () => void): void {
    if (bytes < this.thresholdBytes) return;
    if (worker !== undefined) this.#workers.add(worker);
    const now = this.#clock.now();
    this.#firstAt ??= now;
    const due = Math.min(now + this.#quietMs, this.#firstAt + this.#maxDelayMs);
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = this.#clock.setTimer(() => this.#fire(), Math.max(0, due - now));
  }

  /** Whether a collection is scheduled. */
  get pending(): boolean {
    return this.#timer !== undefined;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#firstAt = undefined;
    const workers = [...this.#workers];
    this.#workers.clear();
    this.#collect();
    for (const w of workers) w();
  }
}

/** The process's reclaimer: HTTP bodies and model instances report to it. */
export const reclaimAfterLarge = new LargeGarbageReclaimer();
