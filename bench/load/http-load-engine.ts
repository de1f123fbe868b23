// The HTTP load engine of one generator thread: a closed loop (concurrency) or an open loop
// (request rate) over prebuilt requests, plus the per-request timeout, enforced by one sweep a
// few times a second rather than a timer per request.

import { ClosedLoop } from './closed-loop.js';
import type { HttpConnection } from './http-connection.js';
import type { LoadEngine } from './load-engine.js';
import type { LoadShare } from './messages.js';
import { OpenLoop } from './open-loop.js';
import { PayloadCycle } from './payload-cycle.js';
import type { WindowRecorder } from './window-recorder.js';

export interface HttpEngineInit {
  readonly host: string;
  readonly port: number;
  /** Complete HTTP requests (head + body), one per input-data entry. */
  readonly requests: readonly Uint8Array[];
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
}

export class HttpLoadEngine implements LoadEngine {
  private runner: ClosedLoop | OpenLoop | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly requests: Buffer[];

  constructor(
    private readonly init: HttpEngineInit,
    private readonly threadIndex: number,
  ) {
    // Views, not copies, of the buffers that arrived through structured clone.
    this.requests = init.requests.map((r) => Buffer.from(r.buffer, r.byteOffset, r.byteLength));
  }

  async start(share: LoadShare, recorder: WindowRecorder): Promise<void> {
    const payloads = new PayloadCycle(this.requests, this.threadIndex);
    switch (share.kind) {
      case 'concurrency': {
        const loop = new ClosedLoop(this.init, payloads, recorder);
        this.runner = loop;
        await loop.start(share.concurrency);
        break;
      }
      case 'request-rate': {
        const loop = new OpenLoop(this.init, payloads, recorder, this.init.maxConnections);
        this.runner = loop;
        await loop.start(share);
        break;
      }
    }
    const timeout = this.init.requestTimeoutMs;
    this.sweeper = setInterval(() => this.sweep(timeout), Math.min(250, Math.max(10, timeout / 4)));
  }

  async stop(): Promise<void> {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    const runner = this.runner;
    this.runner = null;
    if (runner === null) return;
    // Keep timing out stuck requests while draining, or a dead server would hang the stop.
    const timeout = this.init.requestTimeoutMs;
    const drainSweep = setInterval(() => sweepConnections(runner.live(), timeout), 250);
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

  queued(): number {
    return this.runner instanceof OpenLoop ? this.runner.queued() : 0;
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private sweep(timeoutMs: number): void {
    if (this.runner !== null) sweepConnections(this.runner.live(), timeoutMs);
  }
}

function sweepConnections(connections: Iterable<HttpConnection | null>, timeoutMs: number): void {
  const now = performance.now();
  for (const c of connections) {
    if (c !== null && c.busy && now - c.busySince > timeoutMs) {
      c.abort(`no response within ${timeoutMs} ms`);
    }
  }
}
