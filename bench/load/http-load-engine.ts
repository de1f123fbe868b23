// The HTTP load engine of one generator thread: a closed loop (concurrency) or an open loop
// (request rate) over prebuilt requests. The per-request timeout sweep and the draining stop are
// SweptLoadEngine's, shared with the WebSocket engine. For a sequence model each connection of the
// closed loop walks its own sequences (http-sequence-requests.ts). With --cache-hit-ratio each
// request carries a fresh or a repeated input (cache-hit-requests.ts).

import { CacheHitRequests, type CacheHitInit } from './cache-hit-requests.js';
import { ClosedLoop } from './closed-loop.js';
import type { HttpConnection } from './http-connection.js';
import { HttpSequenceRequests, type HttpSequenceInit } from './http-sequence-requests.js';
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
  /** A sequence model's settings (the requests then hold placeholders); null otherwise. */
  readonly sequences: HttpSequenceInit | null;
  /** --cache-hit-ratio (the requests then hold a nonce placeholder); null otherwise. */
  readonly cacheHits: CacheHitInit | null;
}

export class HttpLoadEngine extends SweptLoadEngine<ClosedLoop | OpenLoop, HttpConnection | null> {
  private readonly requests: Buffer[];
  /** Lives as long as the thread, so every level's fresh inputs are new to the server. */
  private readonly cacheHits: CacheHitRequests | null;

  constructor(
    private readonly init: HttpEngineInit,
    private readonly threadIndex: number,
  ) {
    super(init.requestTimeoutMs, sweepConnections);
    // Views, not copies, of the buffers that arrived through structured clone.
    this.requests = init.requests.map((r) => Buffer.from(r.buffer, r.byteOffset, r.byteLength));
    this.cacheHits =
      init.cacheHits === null
        ? null
        : new CacheHitRequests(this.requests, init.cacheHits, threadIndex);
  }

  async start(share: LoadShare, recorder: WindowRecorder): Promise<void> {
    const payloads = this.cacheHits ?? new PayloadCycle(this.requests, this.threadIndex);
    const sequences = this.init.sequences;
    switch (share.kind) {
      case 'concurrency': {
        const source =
          sequences === null
            ? payloads
            : new HttpSequenceRequests(this.requests, sequences, this.threadIndex);
        const loop = new ClosedLoop(this.init, source, recorder);
        this.runner = loop;
        await loop.start(share.concurrency);
        break;
      }
      case 'request-rate': {
        // The command line refuses this earlier; here it would send sequences out of order.
        if (sequences !== null) throw new Error('sequences are sent in concurrency mode only');
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
