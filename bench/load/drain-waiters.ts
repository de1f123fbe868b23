// The callers of a load loop's stop() waiting for its in-flight requests to drain. Each loop keeps
// its own idea of "drained" (busy requests, opening or reconnecting sockets) and releases the
// waiters when it gets there.

export class DrainWaiters {
  private waiters: (() => void)[] = [];

  /** Resolves at the next release(). */
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves everyone waiting now; later waiters wait for the next release. */
  release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
