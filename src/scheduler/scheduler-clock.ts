// The one time source of scheduler/: the time the shell and its queue read and the timers they
// set. Injected, so unit tests drive queue delays, timeouts and queue times with a manual clock.

/** A timer that can be cancelled; cancelling one that already fired does nothing. */
export interface TimerHandle {
  cancel(): void;
}

export interface SchedulerClock {
  /** Monotonic time in nanoseconds. */
  nowNs(): number;
  /** Calls `fire` once, `delayNs` from now (never earlier). */
  setTimer(delayNs: number, fire: () => void): TimerHandle;
}

/** process.hrtime as a number of ns: 2^53 ns is 104 days of uptime, far past any process's. */
const hrNowNs = (): number => Number(process.hrtime.bigint());

/**
 * The real clock. setTimeout counts whole milliseconds from the event loop's cached time, which
 * can lag the hrtime clock by a loop iteration, so a timer can come due early by that much; it
 * then re-arms for what is left, so `fire` never runs before its deadline on the hrtime clock.
 */
export const SYSTEM_CLOCK: SchedulerClock = Object.freeze({
  nowNs: hrNowNs,
  setTimer(delayNs: number, fire: () => void): TimerHandle {
    const dueNs = hrNowNs() + delayNs;
    let t: NodeJS.Timeout;
    const arm = (ns: number): void => {
      t = setTimeout(
        () => {
          const left = dueNs - hrNowNs();
          if (left > 0) arm(left);
          else fire();
        },
        Math.max(0, Math.ceil(ns / 1e6)),
      );
    };
    arm(delayNs);
    return { cancel: () => clearTimeout(t) };
  },
});
