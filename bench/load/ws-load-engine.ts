// The WebSocket load engine of one generator thread (`-i ws`): a closed loop (concurrency) or an
// open loop (request rate) over request frames encoded once, plus the per-request timeout,
// enforced by one sweep a few times a second rather than a timer per request.

import type { LoadEngine } from './load-engine.js';
import type { LoadShare } from './messages.js';
import { PayloadCycle } from './payload-cycle.js';
import type { WindowRecorder } from './window-recorder.js';
import { WsClosedLoop } from './ws-closed-loop.js';
import type { WsConnection, WsTarget } from './ws-connection.js';
import { WsOpenLoop } from './ws-open-loop.js';
import { WsFrameTemplate, type WsRequestPayload } from './ws-request.js';

export interface WsEngineInit extends WsTarget {
  /** msgpack request frames with a placeholder id, one per input-data entry. */
  readonly requests: readonly WsRequestPayload[];
  /** Sockets per thread; 0 = one per 64 outstanding requests (open loop: grow on demand). */
  readonly sockets: number;
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
}

export class WsLoadEngine implements LoadEngine {
  private runner: WsClosedLoop | WsOpenLoop | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly templates: WsFrameTemplate[];

  constructor(
    private readonly init: WsEngineInit,
    private readonly threadIndex: number,
  ) {
    this.templates = init.requests.map((r) => new WsFrameTemplate(r));
  }

  async start(share: LoadShare, recorder: WindowRecorder): Promise<void> {
    const payloads = new PayloadCycle(this.templates, this.threadIndex);
    const connectTimeoutMs = this.init.requestTimeoutMs;
    switch (share.kind) {
      case 'concurrency': {
        const loop = new WsClosedLoop(this.init, payloads, recorder, connectTimeoutMs);
        this.runner = loop;
        await loop.start(share.concurrency, this.init.sockets);
        break;
      }
      case 'request-rate': {
        const loop = new WsOpenLoop(this.init, payloads, recorder, {
          sockets: this.init.sockets,
          maxConnections: this.init.maxConnections,
          connectTimeoutMs,
        });
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
    const drainSweep = setInterval(() => expireAll(runner.live(), timeout), 250);
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

  /** Never: a due request goes out on a socket at once (sockets carry many requests). */
  queued(): number {
    return 0;
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private sweep(timeoutMs: number): void {
    if (this.runner !== null) expireAll(this.runner.live(), timeoutMs);
  }
}

function expireAll(connections: Iterable<WsConnection>, timeoutMs: number): void {
  const now = performance.now();
  for (const c of [...connections]) c.expire(now, timeoutMs);
}
