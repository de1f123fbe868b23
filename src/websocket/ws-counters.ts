// Counters over every socket of the WebSocket endpoint: open sockets and the most response bytes
// any one socket has had waiting for its client. Tests read them to check that a slow consumer
// holds bounded memory. They live in a SharedArrayBuffer when the endpoint runs on several
// front-end threads (--http-thread-count): each thread's route counts into the same cells, so the
// figures are the process's. An Atomics add per socket open or close; a send only compares with
// the peak this thread last saw, and goes to the shared cell when it may be a new peak.

export interface WsCountersSnapshot {
  readonly openSockets: number;
  readonly totalSockets: number;
  /** Highest (queued + socket-buffered) response bytes seen on any one socket. */
  readonly peakPendingBytes: number;
}

const OPEN = 0;
const TOTAL = 1;
const PEAK = 2;

export class WsCounters {
  /** Bytes of shared memory the counters take. */
  static readonly SHARED_BYTES = 3 * 8;

  readonly #cells: BigInt64Array;
  /** The peak as this thread last saw it: a send below it (almost every send) touches no atomics. */
  #seenPeak = 0;

  /** `shared`: the cells to count in (shared by every thread's route); absent, private ones. */
  constructor(shared: SharedArrayBuffer = new SharedArrayBuffer(WsCounters.SHARED_BYTES)) {
    this.#cells = new BigInt64Array(shared, 0, 3);
  }

  socketOpened(): void {
    Atomics.add(this.#cells, OPEN, 1n);
    Atomics.add(this.#cells, TOTAL, 1n);
  }

  socketClosed(): void {
    Atomics.sub(this.#cells, OPEN, 1n);
  }

  observePending(bytes: number): void {
    if (bytes <= this.#seenPeak) return;
    const cells = this.#cells;
    for (;;) {
      const peak = Atomics.load(cells, PEAK);
      this.#seenPeak = Math.max(Number(peak), bytes);
      if (bytes <= Number(peak)) return;
      if (Atomics.compareExchange(cells, PEAK, peak, BigInt(bytes)) === peak) return;
    }
  }

  snapshot(): WsCountersSnapshot {
    return {
      openSockets: Number(Atomics.load(this.#cells, OPEN)),
      totalSockets: Number(Atomics.load(this.#cells, TOTAL)),
      peakPendingBytes: Number(Atomics.load(this.#cells, PEAK)),
    };
  }
}
