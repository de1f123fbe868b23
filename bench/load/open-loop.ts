// Request-rate mode: requests are due at scheduled times whether or not earlier ones have been
// answered (an open loop), and each latency is measured from the *intended* send time. A stalled
// server therefore shows up as latency for every request that should have been sent during the
// stall, instead of the generator politely waiting and hiding it (coordinated omission).
//
// Requests go out on idle keep-alive connections; when none is idle a new one is opened, up to
// --max-connections; past that, due requests wait client-side in a FIFO and the wait counts.

import { ArrivalTicker, type RateShare } from './arrival-ticker.js';
import type { HttpTarget } from './closed-loop.js';
import { DrainWaiters } from './drain-waiters.js';
import { HttpConnection, type HttpOutcome } from './http-connection.js';
import { describeFailure } from './load-engine.js';
import type { WindowRecorder } from './window-recorder.js';

/** Due requests beyond this many waiting are counted as errors rather than queued forever. */
const MAX_BACKLOG = 1_000_000;
const RECONNECT_DELAY_MS = 100;

export class OpenLoop {
  private readonly idle: HttpConnection[] = [];
  private readonly all = new Set<HttpConnection>();
  private opening = 0;
  private backlog: number[] = [];
  private backlogHead = 0;
  private readonly ticker = new ArrivalTicker((intended) => this.dispatch(intended));
  private running = false;
  private busy = 0;
  private readonly drained = new DrainWaiters();

  constructor(
    private readonly target: HttpTarget,
    private readonly payloads: { next(): Buffer },
    private readonly recorder: WindowRecorder,
    private readonly maxConnections: number,
  ) {}

  async start(share: RateShare): Promise<void> {
    // Warm a few connections so the first arrivals do not all pay for a TCP handshake.
    const warm = Math.min(this.maxConnections, Math.max(1, Math.ceil(share.rate / 1000)));
    const opened = await Promise.all(
      Array.from({ length: warm }, () => HttpConnection.open(this.target.host, this.target.port)),
    );
    for (const c of opened) {
      this.all.add(c);
      this.idle.push(c);
    }
    this.running = true;
    this.ticker.start(share);
  }

  stop(): Promise<void> {
    this.running = false;
    this.ticker.stop();
    // Requests still waiting for a connection were never sent: they are dropped, not measured.
    this.backlog = [];
    this.backlogHead = 0;
    if (this.busy === 0 && this.opening === 0) return Promise.resolve();
    return this.drained.wait();
  }

  inFlight(): number {
    return this.busy;
  }

  queued(): number {
    return this.backlog.length - this.backlogHead;
  }

  live(): Iterable<HttpConnection> {
    return this.all;
  }

  close(): void {
    for (const c of this.all) c.close();
    this.all.clear();
    this.idle.length = 0;
  }

  private dispatch(intended: number): void {
    const conn = this.takeIdle();
    if (conn !== null) {
      this.send(conn, intended);
      return;
    }
    if (this.queued() >= MAX_BACKLOG) {
      this.recorder.error(`client-side backlog over ${MAX_BACKLOG} requests`);
      return;
    }
    this.backlog.push(intended);
    if (this.all.size + this.opening < this.maxConnections) this.openConnection();
  }

  private takeIdle(): HttpConnection | null {
    for (;;) {
      const c = this.idle.pop();
      if (c === undefined) return null;
      if (c.usable) return c;
      this.all.delete(c);
    }
  }

  private send(conn: HttpConnection, intended: number): void {
    this.busy += 1;
    this.recorder.lag((performance.now() - intended) * 1000);
    conn.send(this.payloads.next(), (o) => this.onDone(conn, intended, o));
  }

  private onDone(conn: HttpConnection, intended: number, o: HttpOutcome): void {
    this.busy -= 1;
    const status = o.response?.status ?? null;
    if (status !== null && status >= 200 && status < 300) {
      this.recorder.record((o.doneAt - intended) * 1000, o.sendUs, o.recvUs);
    } else {
      this.recorder.error(describeFailure(status, o.response?.bodySample ?? o.error ?? ''));
    }
    if (!conn.usable) {
      this.all.delete(conn);
      if (this.running && this.queued() > 0) this.openConnection();
    } else {
      this.release(conn);
    }
    this.settle();
  }

  private release(conn: HttpConnection): void {
    if (this.running && this.queued() > 0) {
      const intended = this.backlog[this.backlogHead] as number;
      this.backlogHead += 1;
      // Compact the FIFO now and then instead of shifting on every dequeue.
      if (this.backlogHead > 1024 && this.backlogHead * 2 > this.backlog.length) {
        this.backlog = this.backlog.slice(this.backlogHead);
        this.backlogHead = 0;
      }
      this.send(conn, intended);
    } else {
      this.idle.push(conn);
    }
  }

  private openConnection(): void {
    this.opening += 1;
    HttpConnection.open(this.target.host, this.target.port).then(
      (conn) => {
        this.opening -= 1;
        this.all.add(conn);
        this.release(conn);
        this.settle();
      },
      (e: unknown) => {
        this.opening -= 1;
        this.recorder.error(`connect failed: ${e instanceof Error ? e.message : String(e)}`);
        // With nothing connected, waiting requests would wait forever: retry, without spinning.
        if (this.running && this.queued() > 0 && this.all.size + this.opening === 0) {
          this.opening += 1;
          setTimeout(() => {
            this.opening -= 1;
            if (this.running) this.openConnection();
            this.settle();
          }, RECONNECT_DELAY_MS);
        }
        this.settle();
      },
    );
  }

  private settle(): void {
    if (this.running || this.busy > 0 || this.opening > 0) return;
    this.drained.release();
  }
}
