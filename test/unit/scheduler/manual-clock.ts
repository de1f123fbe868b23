// A clock for scheduler tests: time moves only when the test calls `advance`, and timers fire in
// deadline order as it passes them — queue delays and timeouts without sleeping.

import type { SchedulerClock, TimerHandle } from '../../../src/scheduler/scheduler-clock.js';

interface Timer {
  readonly atNs: number;
  readonly seq: number;
  readonly fire: () => void;
  cancelled: boolean;
}

export class ManualClock implements SchedulerClock {
  private now = 1_000_000;
  private seq = 0;
  private timers: Timer[] = [];

  nowNs(): number {
    return this.now;
  }

  setTimer(delayNs: number, fire: () => void): TimerHandle {
    const t: Timer = {
      atNs: this.now + Math.max(0, delayNs),
      seq: this.seq++,
      fire,
      cancelled: false,
    };
    this.timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** Timers armed and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ns`, firing each due timer at its own deadline, earliest first. */
  advance(ns: number): void {
    const target = this.now + ns;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      const due = this.timers
        .filter((t) => t.atNs <= target)
        .sort((a, b) => a.atNs - b.atNs || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = Math.max(this.now, due.atNs);
      due.fire();
    }
    this.now = target;
  }

  advanceUs(us: number): void {
    this.advance(us * 1000);
  }
}
