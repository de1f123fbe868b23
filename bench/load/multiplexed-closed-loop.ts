// Concurrency mode over connections that carry many requests at once (WebSockets, gRPC channels
// and streams): N requests outstanding in total, spread over a few connections (each keeps its
// share in flight, sending the next request the moment one is answered). Latency counts from the
// actual send, as in the HTTP closed loop.

import { DrainWaiters } from './drain-waiters.js';
import { describeFailure } from './load-engine.js';
import type {
  MultiplexedConnection,
  OpenConnection,
  RequestOutcome,
} from './multiplexed-connection.js';
import type { PayloadCycle } from './payload-cycle.js';
import type { WindowRecorder } from './window-recorder.js';

const RECONNECT_DELAY_MS = 100;

/** Connections for `concurrency` outstanding requests: as asked, else one per 64 (at least one). */
export function socketCount(concurrency: number, requested: number): number {
  if (requested > 0) return Math.max(1, Math.min(requested, concurrency));
  return Math.max(1, Math.ceil(concurrency / 64));
}

interface Slot<C> {
  conn: C | null;
  /** Requests this connection keeps in flight. */
  readonly share: number;
}

export class MultiplexedClosedLoop<P, C extends MultiplexedConnection<P>> {
  private readonly slots: Slot<C>[] = [];
  private running = false;
  private busy = 0;
  private reconnecting = 0;
  private readonly drained = new DrainWaiters();

  constructor(
    private readonly openConnection: OpenConnection<P, C>,
    private readonly payloads: PayloadCycle<P>,
    private readonly recorder: WindowRecorder,
  ) {}

  /** Opens every connection first, so connection set-up never lands in a latency. */
  async start(concurrency: number, connections: number): Promise<void> {
    const n = socketCount(concurrency, connections);
    const opened = await Promise.all(Array.from({ length: n }, () => this.open()));
    opened.forEach((conn, i) => {
      this.slots.push({ conn, share: Math.floor(concurrency / n) + (i < concurrency % n ? 1 : 0) });
    });
    this.running = true;
    for (const slot of this.slots) this.fill(slot);
  }

  stop(): Promise<void> {
    this.running = false;
    if (this.busy === 0 && this.reconnecting === 0) return Promise.resolve();
    return this.drained.wait();
  }

  inFlight(): number {
    return this.busy;
  }

  /** Connections, for the engine's timeout sweep. */
  live(): C[] {
    return this.slots.flatMap((s) => (s.conn === null ? [] : [s.conn]));
  }

  close(): void {
    for (const s of this.slots) s.conn?.close();
    this.slots.length = 0;
  }

  private open(): Promise<C> {
    return this.openConnection(
      (conn, o) => this.onDone(conn, o),
      (conn) => this.onClosed(conn),
    );
  }

  private fill(slot: Slot<C>): void {
    const conn = slot.conn;
    if (conn === null) return;
    while (this.running && conn.usable && conn.inFlight < slot.share) this.sendOn(conn);
  }

  private sendOn(conn: C): void {
    this.busy += 1;
    conn.send(this.payloads.next(), performance.now());
  }

  private onDone(conn: C, o: RequestOutcome): void {
    this.busy -= 1;
    if (o.error === null) this.recorder.record((o.doneAt - o.startAt) * 1000, o.sendUs, o.recvUs);
    else this.recorder.error(describeFailure(null, o.error));
    // Keep the connection's share in flight: one answered (or timed out), one more sent.
    if (this.running && conn.usable) this.sendOn(conn);
    this.settle();
  }

  private onClosed(conn: C): void {
    const slot = this.slots.find((s) => s.conn === conn);
    if (slot === undefined) return;
    slot.conn = null;
    if (!this.running) {
      this.settle();
      return;
    }
    this.reconnecting += 1;
    const retry = (): void => {
      this.open().then(
        (fresh) => {
          this.reconnecting -= 1;
          slot.conn = fresh;
          if (this.running) this.fill(slot);
          else fresh.close();
          this.settle();
        },
        (e: unknown) => {
          this.recorder.error(`connect failed: ${e instanceof Error ? e.message : String(e)}`);
          // Back off instead of spinning on a server that is down; the window records the errors.
          setTimeout(() => {
            if (this.running) retry();
            else {
              this.reconnecting -= 1;
              this.settle();
            }
          }, RECONNECT_DELAY_MS);
        },
      );
    };
    retry();
  }

  private settle(): void {
    if (this.running || this.busy > 0 || this.reconnecting > 0) return;
    this.drained.release();
  }
}
