// Request-rate mode over connections that carry many requests at once (WebSockets, gRPC channels
// and streams): requests are due on a schedule whether or not earlier ones were answered, and each
// latency counts from its *intended* send time (so a stalled server cannot hide behind a polite
// generator). A due request never waits client-side: it goes out on the least busy connection.
// With a pool size of 0 the pool grows by one connection whenever every connection has 64 or more
// in flight, up to --max-connections.

import { ArrivalTicker, type RateShare } from './arrival-ticker.js';
import { DrainWaiters } from './drain-waiters.js';
import { describeFailure } from './load-engine.js';
import type {
  MultiplexedConnection,
  OpenConnection,
  RequestOutcome,
} from './multiplexed-connection.js';
import type { PayloadCycle } from './payload-cycle.js';
import type { WindowRecorder } from './window-recorder.js';

const PER_CONNECTION = 64;

export interface OpenLoopLimits {
  /** Fixed pool size; 0 = grow on demand. */
  readonly connections: number;
  readonly maxConnections: number;
  /** What a connection is, for the error when none is open ('WebSocket', 'gRPC channel'). */
  readonly noun: string;
}

export class MultiplexedOpenLoop<P, C extends MultiplexedConnection<P>> {
  private readonly pool = new Set<C>();
  private opening = 0;
  private readonly ticker = new ArrivalTicker((intended) => this.dispatch(intended));
  private running = false;
  private busy = 0;
  private readonly drained = new DrainWaiters();

  constructor(
    private readonly openConnection: OpenConnection<P, C>,
    private readonly payloads: PayloadCycle<P>,
    private readonly recorder: WindowRecorder,
    private readonly limits: OpenLoopLimits,
  ) {}

  async start(share: RateShare): Promise<void> {
    const n = Math.max(1, Math.min(this.limits.connections, this.limits.maxConnections));
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

  live(): Iterable<C> {
    return this.pool;
  }

  close(): void {
    for (const c of this.pool) c.close();
    this.pool.clear();
  }

  private connect(): Promise<C> {
    return this.openConnection(
      (conn, o) => this.onDone(conn, o),
      (conn) => this.onClosed(conn),
    );
  }

  private dispatch(intended: number): void {
    let best: C | null = null;
    for (const c of this.pool) {
      if (c.usable && (best === null || c.inFlight < best.inFlight)) best = c;
    }
    const growable =
      this.limits.connections === 0 || this.pool.size + this.opening < this.limits.connections;
    if ((best === null || best.inFlight >= PER_CONNECTION) && growable) this.grow();
    if (best === null) {
      this.recorder.error(`no open ${this.limits.noun} to send on`);
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

  private onDone(_conn: C, o: RequestOutcome): void {
    this.busy -= 1;
    if (o.error === null) this.recorder.record((o.doneAt - o.startAt) * 1000, o.sendUs, o.recvUs);
    else this.recorder.error(describeFailure(null, o.error));
    this.settle();
  }

  private onClosed(conn: C): void {
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
