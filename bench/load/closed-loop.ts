// Concurrency mode: N keep-alive connections, each sending its next request the moment the
// previous answer arrives, so exactly N requests are outstanding (perf_analyzer's concurrency
// mode). Latency is measured from the actual send, which is what a closed loop can honestly
// claim: it never intends to send while a request is outstanding.

import { DrainWaiters } from './drain-waiters.js';
import { HttpConnection, type HttpOutcome } from './http-connection.js';
import { describeFailure } from './load-engine.js';
/** Where each slot's next request comes from (a PayloadCycle ignores the slot). */
export interface RequestSource {
  next(slot: number): Buffer;
}
import type { WindowRecorder } from './window-recorder.js';

export interface HttpTarget {
  readonly host: string;
  readonly port: number;
}

const RECONNECT_DELAY_MS = 100;

export class ClosedLoop {
  private readonly connections: (HttpConnection | null)[] = [];
  private running = false;
  private busy = 0;
  private readonly drained = new DrainWaiters();

  constructor(
    private readonly target: HttpTarget,
    private readonly payloads: RequestSource,
    private readonly recorder: WindowRecorder,
  ) {}

  /** Opens every connection first, so connection set-up never lands in a latency. */
  async start(concurrency: number): Promise<void> {
    const opened = await Promise.all(
      Array.from({ length: concurrency }, () =>
        HttpConnection.open(this.target.host, this.target.port),
      ),
    );
    this.connections.push(...opened);
    this.running = true;
    for (let slot = 0; slot < opened.length; slot += 1) this.issue(slot);
  }

  stop(): Promise<void> {
    this.running = false;
    if (this.busy === 0) return Promise.resolve();
    return this.drained.wait();
  }

  inFlight(): number {
    return this.connections.filter((c) => c?.busy === true).length;
  }

  /** Connections, for the engine's timeout sweep. */
  live(): readonly (HttpConnection | null)[] {
    return this.connections;
  }

  close(): void {
    for (const c of this.connections) c?.close();
    this.connections.length = 0;
  }

  private issue(slot: number): void {
    const conn = this.connections[slot];
    if (!this.running || conn === undefined) {
      this.settle();
      return;
    }
    if (conn === null || !conn.usable) {
      this.reconnect(slot);
      return;
    }
    this.busy += 1;
    conn.send(this.payloads.next(slot), (outcome) => this.onDone(slot, outcome));
  }

  private onDone(slot: number, o: HttpOutcome): void {
    this.busy -= 1;
    const status = o.response?.status ?? null;
    if (status !== null && status >= 200 && status < 300) {
      this.recorder.record((o.doneAt - o.sentAt) * 1000, o.sendUs, o.recvUs);
    } else {
      this.recorder.error(describeFailure(status, o.response?.bodySample ?? o.error ?? ''));
    }
    this.issue(slot);
  }

  private reconnect(slot: number): void {
    this.connections[slot]?.close();
    this.connections[slot] = null;
    this.busy += 1;
    HttpConnection.open(this.target.host, this.target.port).then(
      (conn) => {
        this.busy -= 1;
        this.connections[slot] = conn;
        this.issue(slot);
      },
      (e: unknown) => {
        this.recorder.error(`connect failed: ${e instanceof Error ? e.message : String(e)}`);
        // Back off instead of spinning on a server that is down; the window records the errors.
        setTimeout(() => {
          this.busy -= 1;
          this.issue(slot);
        }, RECONNECT_DELAY_MS);
      },
    );
  }

  private settle(): void {
    if (this.busy > 0) return;
    this.drained.release();
  }
}
