// Counters over every socket of one WebSocket route: open sockets and the most response bytes any
// one socket has had waiting for its client. Tests read them to check that a slow consumer holds
// bounded memory; they are plain numbers, cheap enough to update on every send.

export interface WsCountersSnapshot {
  readonly openSockets: number;
  readonly totalSockets: number;
  /** Highest (queued + socket-buffered) response bytes seen on any one socket. */
  readonly peakPendingBytes: number;
}

export class WsCounters {
  #open = 0;
  #total = 0;
  #peakPending = 0;

  socketOpened(): void {
    this.#open += 1;
    this.#total += 1;
  }

  socketClosed(): void {
    this.#open -= 1;
  }

  observePending(bytes: number): void {
    if (bytes > this.#peakPending) this.#peakPending = bytes;
  }

  snapshot(): WsCountersSnapshot {
    return {
      openSockets: this.#open,
      totalSockets: this.#total,
      peakPendingBytes: this.#peakPending,
    };
  }
}
