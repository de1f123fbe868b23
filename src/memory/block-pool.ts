// A free list of SharedArrayBuffers by power-of-two size class, for the batch input blocks the
// dynamic batcher builds on every run. Why: allocating a SharedArrayBuffer is far dearer than an
// ArrayBuffer of the same size, since V8 commits and zeroes it up front — measured on the 2-core
// machine, 1.7 µs at 3 KiB, 66 µs at 100 KiB, 770 µs at 400 KiB (an mlp batch of 32-128 rows),
// against 10 / 90 µs for an ArrayBuffer — and the batcher's main thread pays it per run.
//
// Ownership: a buffer taken with `acquire` belongs to its taker until it hands it back with
// `release`, which it may do only once nothing reads or views it any more (for a batch block: the
// worker has answered the run, and no output is a view of it). A pooled buffer holds whatever its
// last user wrote: the taker must write every byte it will read. Buffers smaller than MIN_BYTES or
// larger than MAX_BYTES are neither pooled nor kept; at most FREE_PER_CLASS idle buffers per class
// stay, so the pool holds at most about 2 x FREE_PER_CLASS x the largest batch it has served.
// When the process reclaims memory after large garbage (reclaim-after-large.ts: large requests, or
// clients that went), every pool drops its idle buffers too: a burst of big batches leaves up to
// ~30 MiB idle in one model's pool (identity_fp32, 512 KiB rows, batches of 8), and a server whose
// load went away should give that back with the rest.

import { reclaimAfterLarge } from './reclaim-after-large.js';

/** Below this the allocation is cheap enough, and classes would be many and small. */
const MIN_BYTES = 4 * 1024;
/** Above this a block is rare (a large lone request moves its own buffers instead). */
const MAX_BYTES = 64 * 1024 * 1024;
/** Idle buffers kept per class: enough for every instance's run in flight plus one being merged. */
const FREE_PER_CLASS = 4;

export class BlockPool {
  /** By log2 of the class size. */
  readonly #free = new Map<number, SharedArrayBuffer[]>();

  constructor() {
    reclaimAfterLarge.dropsIdle(this);
  }

  /** A buffer of at least `bytes` bytes (exactly `bytes` when it is outside the pooled range). */
  acquire(bytes: number): SharedArrayBuffer {
    if (bytes < MIN_BYTES || bytes > MAX_BYTES) return new SharedArrayBuffer(bytes);
    const log2 = classOf(bytes);
    return this.#free.get(log2)?.pop() ?? new SharedArrayBuffer(2 ** log2);
  }

  /** Hands `buffer` back; see the ownership rule above. Buffers not from a class are dropped. */
  release(buffer: SharedArrayBuffer): void {
    const size = buffer.byteLength;
    if (size < MIN_BYTES || size > MAX_BYTES || (size & (size - 1)) !== 0) return;
    const log2 = classOf(size);
    let list = this.#free.get(log2);
    if (list === undefined) {
      list = [];
      this.#free.set(log2, list);
    }
    if (list.length < FREE_PER_CLASS && !list.includes(buffer)) list.push(buffer);
  }

  /** Drops every idle buffer (buffers taken and not yet released are not the pool's). */
  dropIdle(): void {
    this.#free.clear();
  }

  /** Idle buffers held, for tests. */
  get idle(): number {
    let n = 0;
    for (const list of this.#free.values()) n += list.length;
    return n;
  }
}

/** log2 of the smallest power of two >= bytes. */
function classOf(bytes: number): number {
  return Math.ceil(Math.log2(bytes));
}
