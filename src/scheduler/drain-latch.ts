// The drain half of Scheduler.stop(), held by the scheduler shell: once stopping, new requests are
// refused and stop() resolves the first time the shell reports it has nothing in flight.

export class DrainLatch {
  private stopping = false;
  private done: (() => void) | undefined;

  /** True from the first stop() on. */
  get draining(): boolean {
    return this.stopping;
  }

  /** Starts draining; `idle` says whether nothing is queued or running right now. */
  begin(idle: boolean): Promise<void> {
    this.stopping = true;
    if (idle) return Promise.resolve();
    return new Promise((resolve) => {
      this.done = resolve;
    });
  }

  /** Call wherever in-flight work may have reached zero. */
  settle(idle: boolean): void {
    if (this.stopping && idle && this.done !== undefined) {
      const done = this.done;
      this.done = undefined;
      done();
    }
  }
}
