// The WebSocket load engine of one generator thread (`-i ws`): a closed loop (concurrency) or an
// open loop (request rate) over request frames encoded once. The per-request timeout sweep and
// the draining stop are SweptLoadEngine's, shared with the HTTP engine.

import type { LoadShare } from './messages.js';
import { PayloadCycle } from './payload-cycle.js';
import { SweptLoadEngine } from './swept-engine.js';
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

export class WsLoadEngine extends SweptLoadEngine<WsClosedLoop | WsOpenLoop, WsConnection> {
  private readonly templates: WsFrameTemplate[];

  constructor(
    private readonly init: WsEngineInit,
    private readonly threadIndex: number,
  ) {
    super(init.requestTimeoutMs, expireAll);
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
    this.startSweeper();
  }

  /** Never: a due request goes out on a socket at once (sockets carry many requests). */
  queued(): number {
    return 0;
  }
}

function expireAll(connections: Iterable<WsConnection>, timeoutMs: number): void {
  const now = performance.now();
  for (const c of [...connections]) c.expire(now, timeoutMs);
}
