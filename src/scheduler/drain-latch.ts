// The drain half of Scheduler.stop() and stopNow(), held by the scheduler shell: once stopping, new
// requests are refused, and every stop resolves the first time the shell reports it has nothing in
// flight.

export class DrainLatch {
  private stopping = false;
  /** One promise for every caller: a stopNow() after a stop() must not orphan the first. */
  private drained: Promise<void> | undefined;
  private done: (() => void) | undefined;

  /** True from the first stop() on. */
  get draining(): boolean {
    return this.stopping;
  }

  /** Starts draining (again is harmless); `idle` says whether nothing is queued or running now. */
  begin(idle: boolean): Promise<void> {
    this.stopping = true;
    if (idle) {
      this.settle(true);
      return Promise.resolve();
    }
    this.drained ??= new Promise((resolve) => {
      this.done = resolve;
    });
    return this.drained;
  }

  /** Call wherever in-flight work may have reached zero. */
  settle(idle: boolean): void {
    if (this.stopping && idle && this.done !== undefined) {
      const done = this.done;
      this.done = undefined;
      this.drained = undefined;
      done();
    }
  }
}
