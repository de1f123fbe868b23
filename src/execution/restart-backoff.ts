// When a lost model instance gets its next worker: at once after a first failure, then after a delay
// that doubles with each further consecutive failure, so a worker that keeps dying (or keeps failing
// to create its session) costs a bounded amount of CPU instead of a respawn loop.

/** The delay after the second consecutive failure; each further one doubles it. */
export const RESTART_BASE_DELAY_MS = 250;

/** The longest wait between two attempts (30 s: a crash loop costs one worker start per 30 s). */
export const RESTART_MAX_DELAY_MS = 30_000;

/**
 * A worker that served a request, or stayed up this long, was healthy: the count of consecutive
 * failures starts again from zero, and its next loss is replaced at once.
 */
export const RESTART_STABLE_MS = 60_000;

/**
 * Milliseconds to wait before starting a worker after `failures` consecutive failures (deaths, or
 * sessions that failed to load, with no healthy worker in between): 0 for the first, then 250 ms,
 * 500 ms, 1 s, ... up to 30 s.
 */
export function restartDelayMs(failures: number): number {
  if (failures <= 1) return 0;
  // Capped before the power so a long loop cannot overflow to Infinity.
  const doublings = Math.min(failures - 2, 20);
  return Math.min(RESTART_MAX_DELAY_MS, RESTART_BASE_DELAY_MS * 2 ** doublings);
}

/**
 * The back-off's time: monotonic nanoseconds, and timers that can be cancelled. The same shape as
 * scheduler/'s SchedulerClock (a layer above, so not imported), which lets tests drive both with
 * one manual clock.
 */
export interface RestartClock {
  nowNs(): number;
  /** Calls `fire` once, `delayNs` from now. */
  setTimer(delayNs: number, fire: () => void): { cancel(): void };
}

/**
 * The real clock of the back-off (model-instance.ts takes a test's manual clock instead). Its timers
 * are unref'd: a pending retry must not keep the process alive on its own.
 */
export const RESTART_CLOCK: RestartClock = Object.freeze({
  nowNs: () => Number(process.hrtime.bigint()),
  setTimer(delayNs: number, fire: () => void) {
    const t = setTimeout(fire, Math.ceil(delayNs / 1e6));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
});

/**
 * One model instance's back-off (model-instance.ts reports to it): its consecutive failures, whether
 * its current worker was healthy when lost, and the pending restart's timer.
 */
export class RestartSchedule {
  /** Consecutive losses with no healthy worker in between: the back-off's input. */
  #failures = 0;
  /** When the current worker's session became ready (clock time, ns). */
  #readyAtNs = 0;
  /** The current worker has answered a run (any reply: the worker works). */
  #answered = false;
  #timer: { cancel(): void } | undefined;
  /** When the pending restart is due (clock time, ns), while `#timer` is set. */
  #retryAtNs = 0;

  constructor(private readonly clock: RestartClock) {}

  /** A worker started: it has answered nothing yet. */
  started(): void {
    this.#answered = false;
  }

  /** The current worker's session is ready. */
  ready(): void {
    this.#readyAtNs = this.clock.nowNs();
  }

  /** The current worker answered a run. */
  answered(): void {
    this.#answered = true;
  }

  /** A replacement could not start (its session failed, or its start timed out). */
  failedStart(): void {
    this.#failures++;
  }

  /**
   * The current worker was lost (`wasReady`: its session was ready). One that answered a run, or
   * stayed up RESTART_STABLE_MS, was healthy: the count starts again, and its replacement at once.
   */
  lost(wasReady: boolean): void {
    const upMs = (this.clock.nowNs() - this.#readyAtNs) / 1e6;
    const healthy = wasReady && (this.#answered || upMs >= RESTART_STABLE_MS);
    this.#failures = healthy ? 1 : this.#failures + 1;
  }

  /** Milliseconds to wait before the next worker, by the failures so far. */
  delayMs(): number {
    return restartDelayMs(this.#failures);
  }

  /** Calls `fire` once `ms` (> 0) have passed, unless `cancel()` comes first. */
  wait(ms: number, fire: () => void): void {
    this.#retryAtNs = this.clock.nowNs() + ms * 1e6;
    this.#timer = this.clock.setTimer(ms * 1e6, () => {
      this.#timer = undefined;
      fire();
    });
  }

  /** While a restart waits: the consecutive failures and the time left before it. */
  get pending(): { readonly failures: number; readonly remainingMs: number } | undefined {
    if (this.#timer === undefined) return undefined;
    const remainingMs = Math.max(0, (this.#retryAtNs - this.clock.nowNs()) / 1e6);
    return { failures: this.#failures, remainingMs };
  }

  /** Drops the pending restart, if any. */
  cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}
