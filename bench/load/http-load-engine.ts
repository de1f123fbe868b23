// The HTTP load engine of one generator thread: a closed loop (concurrency) or an open loop
// (request rate) over prebuilt requests. The per-request timeout sweep and the draining stop are
// SweptLoadEngine's, shared with the WebSocket engine.

import { ClosedLoop } from './closed-loop.js';
import type { HttpConnection } from './http-connection.js';
import type { LoadShare } from './messages.js';
import { OpenLoop } from './open-loop.js';
import { PayloadCycle } from './payload-cycle.js';
import { SweptLoadEngine } from './swept-engine.js';
import type { WindowRecorder } from './window-recorder.js';

export interface HttpEngineInit {
  readonly host: string;
  readonly port: number;
  /** Complete HTTP requests (head + body), one per input-data entry. */
  readonly requests: readonly Uint8Array[];
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
}

export class HttpLoadEngine extends SweptLoadEngine<ClosedLoop | OpenLoop, HttpConnection | null> {
  private readonly requests: Buffer[];

  constructor(
    private readonly init: HttpEngineInit,
    private readonly threadIndex: number,
  ) {
    super(init.requestTimeoutMs, sweepConnections);
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
    this.startSweeper();
  }

  queued(): number {
    return this.runner instanceof OpenLoop ? this.runner.queued() : 0;
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
