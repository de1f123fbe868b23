// The lifecycle both protocol load engines share: run one loop (closed or open) at a time, enforce
// the per-request timeout with one sweep a few times a second rather than a timer per request,
// and keep sweeping while a stop drains, or a dead server would hang the stop.

import type { LoadEngine } from './load-engine.js';
import type { LoadShare } from './messages.js';
import type { WindowRecorder } from './window-recorder.js';

/** What an engine needs of its running loop; C is the loop's connection type. */
export interface SweptLoop<C> {
  /** Resolves when nothing is in flight any more. */
  stop(): Promise<void>;
  inFlight(): number;
  /** Connections, for the timeout sweep. */
  live(): Iterable<C>;
  close(): void;
}

/** Times out every request on `connections` that has waited longer than `timeoutMs`. */
export type ExpireStale<C> = (connections: Iterable<C>, timeoutMs: number) => void;

export abstract class SweptLoadEngine<L extends SweptLoop<C>, C> implements LoadEngine {
  protected runner: L | null = null;
  private sweeper: NodeJS.Timeout | null = null;

  protected constructor(
    private readonly requestTimeoutMs: number,
    private readonly expireStale: ExpireStale<C>,
  ) {}

  abstract start(share: LoadShare, recorder: WindowRecorder): Promise<void>;

  abstract queued(): number;

  async stop(): Promise<void> {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    const runner = this.runner;
    this.runner = null;
    if (runner === null) return;
    // Keep timing out stuck requests while draining, or a dead server would hang the stop.
    const timeout = this.requestTimeoutMs;
    const drainSweep = setInterval(() => this.expireStale(runner.live(), timeout), 250);
    try {
      await runner.stop();
    } finally {
      clearInterval(drainSweep);
      runner.close();
    }
  }

  inFlight(): number {
    return this.runner?.inFlight() ?? 0;
  }

  async close(): Promise<void> {
    await this.stop();
  }

  /** Called by start once the loop is running: from here on stale requests time out. */
  protected startSweeper(): void {
    const timeout = this.requestTimeoutMs;
    this.sweeper = setInterval(() => this.sweep(timeout), Math.min(250, Math.max(10, timeout / 4)));
  }

  private sweep(timeoutMs: number): void {
    if (this.runner !== null) this.expireStale(this.runner.live(), timeoutMs);
  }
}
