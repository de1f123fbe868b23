// Request-rate mode over WebSockets: requests are due on a schedule whether or not earlier ones
// were answered, and each latency counts from its *intended* send time (so a stalled server cannot
// hide behind a polite generator). A socket carries many requests at once, so a due request never
// waits client-side: it goes out on the least busy socket. With --ws-connections 0 the pool grows
// by one socket whenever every socket has 64 or more in flight, up to --max-connections.

import { ArrivalTicker, type RateShare } from './arrival-ticker.js';
import { DrainWaiters } from './drain-waiters.js';
import { describeFailure } from './load-engine.js';
import type { PayloadCycle } from './payload-cycle.js';
import type { WindowRecorder } from './window-recorder.js';
import { WsConnection, type WsOutcome, type WsTarget } from './ws-connection.js';
import type { WsFrameTemplate } from './ws-request.js';

const PER_SOCKET = 64;

export interface WsOpenLoopLimits {
  /** Fixed pool size; 0 = grow on demand. */
  readonly sockets: number;
  readonly maxConnections: number;
  readonly connectTimeoutMs: number;
}

export class WsOpenLoop {
  private readonly pool = new Set<WsConnection>();
  private opening = 0;
  private readonly ticker = new ArrivalTicker((intended) => this.dispatch(intended));
  private running = false;
  private busy = 0;
  private readonly drained = new DrainWaiters();

  constructor(
    private readonly target: WsTarget,
    private readonly payloads: PayloadCycle<WsFrameTemplate>,
    private readonly recorder: WindowRecorder,
    private readonly limits: WsOpenLoopLimits,
  ) {}

  async start(share: RateShare): Promise<void> {
    const n = Math.max(1, Math.min(this.limits.sockets, this.limits.maxConnections));
    const opened = await Promise.all(Array.from({ length: n }, () => this.connect()));
    for (const c of opened) this.pool.add(c);
    this.running = true;
    this.ticker.start(share);
  }

  stop(): Promise<void> {
    this.running = false;
    this.ticker.stop();
    if (this.busy === 0 && this.opening === 0) return Promise.resolve();
    return this.drained.wait();
  }

  inFlight(): number {
    return this.busy;
  }

  live(): Iterable<WsConnection> {
    return this.pool;
  }

  close(): void {
    for (const c of this.pool) c.close();
    this.pool.clear();
  }

  private connect(): Promise<WsConnection> {
    return WsConnection.open(
      this.target,
      (conn, o) => this.onDone(conn, o),
      (conn) => this.onClosed(conn),
      this.limits.connectTimeoutMs,
    );
  }

  private dispatch(intended: number): void {
    let best: WsConnection | null = null;
    for (const c of this.pool) {
      if (c.usable && (best === null || c.inFlight < best.inFlight)) best = c;
    }
    const growable =
      this.limits.sockets === 0 || this.pool.size + this.opening < this.limits.sockets;
    if ((best === null || best.inFlight >= PER_SOCKET) && growable) this.grow();
    if (best === null) {
      this.recorder.error('no open WebSocket to send on');
      return;
    }
    this.busy += 1;
    this.recorder.lag((performance.now() - intended) * 1000);
    best.send(this.payloads.next(), intended);
  }

  private grow(): void {
    if (this.opening > 0 || this.pool.size + this.opening >= this.limits.maxConnections) return;
    this.opening += 1;
    this.connect().then(
      (conn) => {
        this.opening -= 1;
        if (this.running) this.pool.add(conn);
        else conn.close();
        this.settle();
      },
      (e: unknown) => {
        this.opening -= 1;
        this.recorder.error(`connect failed: ${e instanceof Error ? e.message : String(e)}`);
        this.settle();
      },
    );
  }

  private onDone(_conn: WsConnection, o: WsOutcome): void {
    this.busy -= 1;
    if (o.error === null) this.recorder.record((o.doneAt - o.startAt) * 1000, o.sendUs, o.recvUs);
    else this.recorder.error(describeFailure(null, o.error));
    this.settle();
  }

  private onClosed(conn: WsConnection): void {
    this.pool.delete(conn);
    // Keep the fixed pool at strength (the next due request reconnects when the pool is empty).
    if (this.running) this.grow();
    this.settle();
  }

  private settle(): void {
    if (this.running || this.busy > 0 || this.opening > 0) return;
    this.drained.release();
  }
}
