// The process-wide budget for memory held on behalf of clients (--client-memory-budget): answers
// written and not yet taken by the client, and request bytes a client may push ahead of the server
// reading them (an HTTP/2 stream's receive window, an HTTP request body being read). Per-connection bounds (a stream's unsent bytes,
// --ws-max-queued-bytes) make one slow client wait; this bound keeps many of them together from
// taking the process's memory. docs/operations.md, "Hostile clients", says what a client over it
// sees.
//
// Ownership: each holder (a gRPC stream, a WebSocket, an HTTP exchange) owns one `BudgetAccount`,
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
  #peak = 0;
  #closed = false;

  constructor(budget: MemoryBudget) {
    this.#budget = budget;
  }

  /** Bytes this holder has reserved now. */
  get held(): number {
    return this.#held;
  }

  /** The budget this account draws on. */
  get budget(): MemoryBudget {
    return this.#budget;
  }

  /** Whether close() has run. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The most this holder has kept at once. */
  get peak(): number {
    return this.#peak;
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
    if (total > this.#peak) this.#peak = total;
    return true;
  }

  /** Gives back everything held and returns how much that was; later calls return 0. */
  close(): number {
    return this.closeKeeping(0).closed;
  }

  /**
   * Closes the account but keeps `keep` of its bytes (at most what it holds) reserved until the
   * returned `release` runs (once; later calls do nothing): memory that is garbage now and still
   * resident until a GC frees it. `closed` is what close() would have returned.
   */
  closeKeeping(keep: number): { readonly closed: number; readonly release: () => void } {
    if (this.#closed) return { closed: 0, release: () => undefined };
    this.#closed = true;
    const closed = this.#held;
    const kept = Math.min(Math.max(0, keep), closed);
    this.#budget.release(closed - kept);
    this.#held = 0;
    let released = kept === 0;
    return {
      closed,
      release: () => {
        if (released) return;
        released = true;
        this.#budget.release(kept);
      },
    };
  }
}

/** Bytes held for clients that went, since the last reclaim notice. */
let leftBehind = 0;

/**
 * Ends a holder whose client went (or that the server ended): what it holds is garbage now, external
 * memory V8 frees only at a major GC, which an idle process may not run for minutes. So:
 * - that garbage stays counted in the budget until the reclaim round that frees it has run (its
 *   trim: reclaim-after-large.ts), instead of being handed to the next client while it is still
 *   resident (measured with 4 stalled WebSockets and 100 stalled gRPC streams: RSS peaked 90 to
 *   136 MiB over the budget when a holder's bytes were released at its end);
 * - the holder's peak (not what it held at the end: a holder the server already emptied leaves its
 *   buffers to the same GC) counts towards a reclaim round. Summed over holders, since each
 *   stream's share is small; below the reclaimer's threshold nothing is scheduled and the
 *   reservations go back at once. So the memory of clients that went comes back within seconds.
 */
export function closeLeavingGarbage(account: BudgetAccount): void {
  if (account.closed) return;
  const { release } = account.closeKeeping(account.held);
  leftBehind += account.peak;
  if (leftBehind < reclaimAfterLarge.thresholdBytes) {
    release();
    return;
  }
  reclaimAfterLarge.note(leftBehind, undefined, release);
  leftBehind = 0;
}

/**
 * The default: what 100 stalled gRPC streams or 4 stalled WebSockets may hold together, sized so
 * that they raise the server's RSS by at most 256 MiB. The process holds more than the budget
 * counts (V8 collects dead external buffers only once they have grown by about 64 MiB per thread
 * since its last collection, and the sockets' own buffers): bench/hostile-clients.ts measured peaks
 * of +172 to +220 MiB over the start with 160 MiB (docs/operations.md, "Clients that never read").
 */
export const DEFAULT_CLIENT_MEMORY_BUDGET_BYTES = 160 * 1024 * 1024;
