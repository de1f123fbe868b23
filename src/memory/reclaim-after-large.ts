// Giving back the memory of large requests. A request of hundreds of MiB leaves its body, its
// shared-memory blocks and the worker's copies behind as garbage held only by V8 objects; V8 frees
// such external memory at its next major GC, and an otherwise idle process may not run one for
// minutes (piscina workers wait in Atomics.wait between tasks, so not even their own timers run).
// Whoever drops a large buffer tells the reclaimer; once things have been quiet for `quietMs` (and
// at most `maxDelayMs` after the first notice, so a steady stream of large requests still gets
// collected), it runs one full GC on this thread and asks every instance that ran a large request
// to collect in its worker. Requests below the threshold never reach the timer: the small-request
// hot path pays one comparison. `trimDelayMs` after the collections it trims the native heap
// (trim-native-heap.ts): the GC hands freed backing stores to background sweeper tasks, so a trim
// right after gc() returns finds most of them not yet freed. The trim is skipped when a notice came
// in between (the load is still making large garbage, and glibc will reuse what it keeps): it
// blocks the thread for its duration, measured at 30-60 ms on a heap with 300 MB of freed small
// blocks on the 2-core machine, so it runs only once the load has gone quiet. `followUpMs` after a round, one more
// round runs (unless a notice starts a new one first): work that was running when its client went
// finishes after the first round, and its buffers would otherwise wait for V8's own heuristics
// (measured with 4 stalled WebSockets: +126 MiB held 10 s after they went, without it, +84 MiB with
// one round only).

import { collectGarbage } from './collect-garbage.js';
import { trimNativeHeap } from './trim-native-heap.js';

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
  /** Returns freed native memory to the system (default: glibc's malloc_trim). */
  readonly trim?: () => void;
  /** How long after the collections the trim runs. */
  readonly trimDelayMs?: number;
  /** How long after a round the follow-up round runs (0: none). */
  readonly followUpMs?: number;
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

/** A cache of reusable buffers (block-pool.ts) that can let its idle ones go. */
export interface IdleHolder {
  dropIdle(): void;
}

export class LargeGarbageReclaimer {
  readonly #clock: ReclaimClock;
  readonly #quietMs: number;
  readonly #maxDelayMs: number;
  readonly thresholdBytes: number;
  readonly #collect: () => void;
  readonly #trim: () => void;
  readonly #trimDelayMs: number;
  #trimTimer: unknown = undefined;
  readonly #followUpMs: number;
  #followUpTimer: unknown = undefined;
  /** The workers asked in the last round, asked again by its follow-up. */
  #lastWorkers: (() => void)[] = [];
  /** Caches that drop what they keep idle when a round fires (held weakly: a cache may go). */
  readonly #idleHolders = new Set<WeakRef<IdleHolder>>();
  /** Called after the next trim: reservations of the garbage a round frees (client-budget.ts). */
  #afterTrim: (() => void)[] = [];
  /** Those of rounds that fired, waiting for the trim timer. */
  #pendingAfterTrim: (() => void)[] = [];
  /** Worker-side collections to request when the timer fires, one per instance. */
  readonly #workers = new Set<() => void>();
  #timer: unknown = undefined;
  /** When the last notice arrived, and when the last round fired. */
  #lastNoteAt = Number.NEGATIVE_INFINITY;
  #firedAt = Number.NEGATIVE_INFINITY;
  /** When the first notice of the pending round arrived (undefined: no round pending). */
  #firstAt: number | undefined;

  constructor(options: ReclaimerOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#quietMs = options.quietMs ?? 1000;
    this.#maxDelayMs = options.maxDelayMs ?? 5000;
    this.thresholdBytes = options.thresholdBytes ?? LARGE_GARBAGE_BYTES;
    this.#collect = options.collect ?? collectGarbage;
    this.#trim = options.trim ?? trimNativeHeap;
    this.#trimDelayMs = options.trimDelayMs ?? 1000;
    this.#followUpMs = options.followUpMs ?? 3000;
  }

  /**
   * `bytes` of buffers have become (or are about to become) garbage; `worker`, when given, asks
   * the instance that held them to collect in its own thread; `afterTrim`, when given, runs once
   * the round's trim has (or at once when `bytes` is below the threshold: nothing is scheduled).
   */
  note(bytes: number, worker?: () => void, afterTrim?: () => void): void {
    if (bytes < this.thresholdBytes) {
      afterTrim?.();
      return;
    }
    this.#lastNoteAt = this.#clock.now();
    if (worker !== undefined) this.#workers.add(worker);
    if (afterTrim !== undefined) this.#afterTrim.push(afterTrim);
    if (this.#followUpTimer !== undefined) {
      // The new round follows the last one up: its workers are asked again.
      this.#clock.clearTimer(this.#followUpTimer);
      this.#followUpTimer = undefined;
      for (const w of this.#lastWorkers) this.#workers.add(w);
    }
    const now = this.#clock.now();
    this.#firstAt ??= now;
    const due = Math.min(now + this.#quietMs, this.#firstAt + this.#maxDelayMs);
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = this.#clock.setTimer(() => this.#fire(false), Math.max(0, due - now));
  }

  /** `holder` drops its idle buffers at each round, before the collections (until it is garbage). */
  dropsIdle(holder: IdleHolder): void {
    this.#idleHolders.add(new WeakRef(holder));
  }

  /** Whether a collection is scheduled. */
  get pending(): boolean {
    return this.#timer !== undefined;
  }

  #fire(followUp: boolean): void {
    this.#timer = undefined;
    this.#firedAt = this.#clock.now();
    this.#firstAt = undefined;
    const workers = followUp ? this.#lastWorkers : [...this.#workers];
    this.#workers.clear();
    for (const ref of this.#idleHolders) {
      const holder = ref.deref();
      if (holder === undefined) this.#idleHolders.delete(ref);
      else holder.dropIdle();
    }
    this.#collect();
    for (const w of workers) w();
    // Notices that arrive after this point wait for the next round's trim.
    const afterTrim = this.#afterTrim;
    this.#afterTrim = [];
    if (this.#trimTimer !== undefined) this.#clock.clearTimer(this.#trimTimer);
    const pendingAfterTrim = this.#pendingAfterTrim.concat(afterTrim);
    this.#pendingAfterTrim = pendingAfterTrim;
    this.#trimTimer = this.#clock.setTimer(() => {
      this.#trimTimer = undefined;
      this.#pendingAfterTrim = [];
      try {
        if (this.#lastNoteAt <= this.#firedAt) this.#trim();
      } finally {
        for (const f of pendingAfterTrim) f();
      }
    }, this.#trimDelayMs);
    this.#lastWorkers = followUp ? [] : workers;
    if (!followUp && this.#followUpMs > 0) {
      this.#followUpTimer = this.#clock.setTimer(() => {
        this.#followUpTimer = undefined;
        this.#fire(true);
      }, this.#followUpMs);
    }
  }
}

/** The process's reclaimer: HTTP bodies and model instances report to it. */
export const reclaimAfterLarge = new LargeGarbageReclaimer();
