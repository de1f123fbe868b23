// The process-wide budget for memory held on behalf of clients (--client-memory-budget): answers
// written and not yet taken by the client, and request bytes a client may push ahead of the server
// reading them (an HTTP/2 stream's receive window). Per-connection bounds (a stream's unsent bytes,
// --ws-max-queued-bytes) make one slow client wait; this bound keeps many of them together from
// taking the process's memory. docs/operations.md, "Hostile clients", says what a client over it
// sees.
//
// Ownership: each connection-level holder (a gRPC stream, a WebSocket) owns one `BudgetAccount`,
// and only it changes that account. `hold(total)` sets what the holder keeps now, reserving or
// releasing the difference; `close()` gives everything back, exactly once, when the holder is done
// (its client went, or the server ended it). The budget itself is two operations, tryReserve and
// release, so that when the front ends run on several threads it can be backed by one
// SharedArrayBuffer counter (Atomics.add, and compareExchange for tryReserve) without changing any
// holder.

import { reclaimAfterLarge } from './reclaim-after-large.js';

/** The shared counter: reserve all of `bytes` or none; release what was reserved. */
export interface MemoryBudget {
  readonly limitBytes: number;
  /** Bytes reserved now, over every holder. */
  readonly reservedBytes: number;
  tryReserve(bytes: number): boolean;
  release(bytes: number): void;
}

/** 0 means no limit: every reservation succeeds (and is still counted). */
export function memoryBudget(limitBytes: number): MemoryBudget {
  let reserved = 0;
  const limit = limitBytes === 0 ? Number.POSITIVE_INFINITY : limitBytes;
  return {
    limitBytes,
    get reservedBytes() {
      return reserved;
    },
    tryReserve(bytes) {
      if (reserved + bytes > limit) return false;
      reserved += bytes;
      return true;
    },
    release(bytes) {
      reserved -= bytes;
    },
  };
}

/**
 * The same budget counted in `counter` (8 bytes of a SharedArrayBuffer), so every thread that
 * serves clients (--http-thread-count) draws on one process-wide figure: each thread makes its own
 * with the same counter. tryReserve is a compare-and-swap loop, so two threads never both take the
 * last bytes.
 */
export function sharedMemoryBudget(limitBytes: number, counter: SharedArrayBuffer): MemoryBudget {
  const cell = new BigInt64Array(counter, 0, 1);
  const limit = limitBytes === 0 ? Number.POSITIVE_INFINITY : limitBytes;
  return {
    limitBytes,
    get reservedBytes() {
      return Number(Atomics.load(cell, 0));
    },
    tryReserve(bytes) {
      const add = BigInt(bytes);
      for (;;) {
        const now = Atomics.load(cell, 0);
        if (Number(now) + bytes > limit) return false;
        if (Atomics.compareExchange(cell, 0, now, now + add) === now) return true;
      }
    },
    release(bytes) {
      Atomics.sub(cell, 0, BigInt(bytes));
    },
  };
}

/** One holder's share of a budget; see the ownership rule above. */
export class BudgetAccount {
  readonly #budget: MemoryBudget;
  #held = 0;
  #closed = false;

  constructor(budget: MemoryBudget) {
    this.#budget = budget;
  }

  /** Bytes this holder has reserved now. */
  get held(): number {
    return this.#held;
  }

  /**
   * Sets the bytes this holder keeps to `total`. Returns false, changing nothing, when the growth
   * does not fit the budget; a decrease always succeeds. After close() it does nothing.
   */
  hold(total: number): boolean {
    if (this.#closed) return true;
    const delta = total - this.#held;
    if (delta > 0 && !this.#budget.tryReserve(delta)) return false;
    if (delta < 0) this.#budget.release(-delta);
    this.#held = total;
    return true;
  }

  /** Gives back everything held and returns how much that was; later calls return 0. */
  close(): number {
    if (this.#closed) return 0;
    this.#closed = true;
    const released = this.#held;
    this.#budget.release(released);
    this.#held = 0;
    return released;
  }
}

/** Bytes of answers dropped with their clients since the last reclaim notice. */
let leftBehind = 0;

/**
 * A holder ended with `bytes` of answers its client never took: they are garbage now, external
 * memory V8 frees only at a major GC, which an idle process may not run for minutes. Summed over
 * holders, since each stream's share is small, and handed to the large-garbage reclaimer once it
 * is worth a full GC; so the memory of clients that went comes back within seconds.
 */
export function noteLeftBehind(bytes: number): void {
  if (bytes <= 0) return;
  leftBehind += bytes;
  if (leftBehind < reclaimAfterLarge.thresholdBytes) return;
  reclaimAfterLarge.note(leftBehind);
  leftBehind = 0;
}

/** The default: what 100 stalled gRPC streams or 4 stalled WebSockets may hold together. */
export const DEFAULT_CLIENT_MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;
