// One lock per GPU device, in shared memory, for execution providers one process must never enter
// from two threads at once (`serialized` in config/accelerators.ts: WebGPU, whose sessions in one
// process share one WebGPU device and queue; two workers running at once crash the process with
// "[CommandEncoder] is already finished"). The main thread makes each device's lock once and gives
// it to every worker of such an instance on that device, whatever its model; a worker holds it
// across session creation, each run, and the session's release.
//
// The lock is one Int32 word: 0 when free, else the holder's threadId (workers' ids start at 1), so
// the main thread can free a lock whose holder died (`releaseLocksHeldBy`). A waiter parks in
// Atomics.wait in slices, so a lock freed without a notify (or a holder gone) is seen again soon.

import { threadId } from 'node:worker_threads';
import { fail } from '../../errors.js';

const FREE = 0;
const WORD = 0;
/** How long a waiter parks before it looks again (a release notifies it sooner). */
const WAIT_SLICE_MS = 100;

/** The locks of this process, by device id: made in the main thread, shared with workers. */
const locks = new Map<number, SharedArrayBuffer>();

/** The lock of GPU `deviceId` in this process, made on first use. Main thread. */
export function deviceLockBuffer(deviceId: number): SharedArrayBuffer {
  let buffer = locks.get(deviceId);
  if (buffer === undefined) {
    buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    locks.set(deviceId, buffer);
  }
  return buffer;
}

/**
 * Frees every device lock the thread `holder` holds: called when a worker's thread has ended, so a
 * worker that died inside its critical section does not stop the device for good. Main thread.
 */
export function releaseLocksHeldBy(holder: number): void {
  if (holder === FREE) return;
  for (const buffer of locks.values()) {
    const word = new Int32Array(buffer);
    if (Atomics.compareExchange(word, WORD, holder, FREE) === holder) Atomics.notify(word, WORD, 1);
  }
}

/** Which thread holds a device's lock now: its threadId, or undefined when free. */
export function lockHolder(buffer: SharedArrayBuffer): number | undefined {
  const holder = Atomics.load(new Int32Array(buffer), WORD);
  return holder === FREE ? undefined : holder;
}

/** A worker's handle on one device's lock. */
export class DeviceLock {
  private readonly word: Int32Array;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly holder: number = threadId,
  ) {
    if (holder === FREE) throw fail('INTERNAL', 'a device lock is taken by worker threads only');
    this.word = new Int32Array(buffer);
  }

  /** Blocks this thread until it holds the lock (a worker has nothing else to do meanwhile). */
  acquire(): void {
    for (;;) {
      const seen = Atomics.compareExchange(this.word, WORD, FREE, this.holder);
      if (seen === FREE) return;
      if (seen === this.holder)
        throw fail('INTERNAL', 'a device lock was taken twice by one thread');
      Atomics.wait(this.word, WORD, seen, WAIT_SLICE_MS);
    }
  }

  release(): void {
    if (Atomics.compareExchange(this.word, WORD, this.holder, FREE) !== this.holder) {
      throw fail('INTERNAL', 'a device lock was released by a thread that does not hold it');
    }
    Atomics.notify(this.word, WORD, 1);
  }

  /** Runs `section` holding the lock, and releases it however `section` ends. */
  async hold<T>(section: () => Promise<T>): Promise<T> {
    this.acquire();
    try {
      return await section();
    } finally {
      this.release();
    }
  }
}
