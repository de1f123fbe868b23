// The clock of an open loop (HTTP or WebSocket): draws arrival times from the share's schedule and
// hands each due request to the loop at its intended time. What "send" means (an idle connection,
// a client-side FIFO, the least busy socket) stays with each loop.

import { ArrivalSchedule } from './arrival-schedule.js';
import type { LoadShare } from './messages.js';

export type RateShare = Extract<LoadShare, { kind: 'request-rate' }>;

export class ArrivalTicker {
  private schedule: ArrivalSchedule | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  /** `dispatch` gets each request's intended send time (performance.now() clock). */
  constructor(private readonly dispatch: (intended: number) => void) {}

  /** Starts the arrivals now; a rate of 0 sends nothing. */
  start(share: RateShare): void {
    this.running = true;
    if (share.rate <= 0) return;
    this.schedule = new ArrivalSchedule(
      performance.now(),
      share.rate,
      share.distribution,
      share.seed,
      share.phase,
    );
    this.tick();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    this.timer = null;
    const schedule = this.schedule;
    if (!this.running || schedule === null) return;
    const now = performance.now();
    while (schedule.peek() <= now) this.dispatch(schedule.take());
    // setTimeout has ~1 ms granularity, so at high rates a tick sends a small burst; that is fine
    // because every latency still counts from its own intended time.
    this.timer = setTimeout(() => this.tick(), Math.max(0, schedule.peek() - performance.now()));
  }
}
