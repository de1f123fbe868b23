// One thread's measurements for the current window. The hot path (record) does a histogram write
// and three additions; `take` encodes the window and starts the next one.

import {
  encodeHistogram,
  newHistogram,
  recordUs,
  type Histogram,
} from '../measure/latency-histogram.js';
import type { ThreadWindow } from './messages.js';

/** Wall-clock ms with sub-ms precision, comparable between threads and processes. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

export class WindowRecorder {
  private histogram: Histogram = newHistogram();
  private startMs = epochMs();
  private completed = 0;
  private errors = 0;
  private sendUsSum = 0;
  private recvUsSum = 0;
  private maxLagUs = 0;
  private errorSample: string | null = null;

  /** A request completed: its latency, and the client's send and receive time, all in µs. */
  record(latencyUs: number, sendUs: number, recvUs: number): void {
    recordUs(this.histogram, latencyUs);
    this.completed += 1;
    this.sendUsSum += sendUs;
    this.recvUsSum += recvUs;
  }

  error(message: string): void {
    this.errors += 1;
    this.errorSample ??= message;
  }

  /** Open loop: a request left this long after its intended send time. */
  lag(us: number): void {
    if (us > this.maxLagUs) this.maxLagUs = us;
  }

  /** Discards what was recorded (a level starts) and opens a new window now. */
  reset(): void {
    this.clear(epochMs());
  }

  take(inFlight: number, queued: number): ThreadWindow {
    const now = epochMs();
    const window: ThreadWindow = {
      startMs: this.startMs,
      endMs: now,
      completed: this.completed,
      errors: this.errors,
      histogram: encodeHistogram(this.histogram),
      sendUsSum: this.sendUsSum,
      recvUsSum: this.recvUsSum,
      maxLagUs: this.maxLagUs,
      inFlight,
      queued,
      errorSample: this.errorSample,
    };
    this.clear(now);
    return window;
  }

  private clear(now: number): void {
    this.histogram = newHistogram();
    this.startMs = now;
    this.completed = 0;
    this.errors = 0;
    this.sendUsSum = 0;
    this.recvUsSum = 0;
    this.maxLagUs = 0;
    this.errorSample = null;
  }
}
