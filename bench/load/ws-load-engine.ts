// The WebSocket load engine of one generator thread (`-i ws`): request frames encoded once, sent
// over sockets that carry many requests each (the loops are MultiplexedLoadEngine's).

import { MultiplexedLoadEngine } from './multiplexed-load-engine.js';
import { WsConnection, type WsTarget } from './ws-connection.js';
import { WsFrameTemplate, type WsRequestPayload } from './ws-request.js';

export interface WsEngineInit extends WsTarget {
  /** msgpack request frames with a placeholder id, one per input-data entry. */
  readonly requests: readonly WsRequestPayload[];
  /** Sockets per thread; 0 = one per 64 outstanding requests (open loop: grow on demand). */
  readonly sockets: number;
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
}

export class WsLoadEngine extends MultiplexedLoadEngine<WsFrameTemplate, WsConnection> {
  constructor(init: WsEngineInit, threadIndex: number) {
    super(
      {
        payloads: init.requests.map((r) => new WsFrameTemplate(r)),
        open: (onOutcome, onClosed) =>
          WsConnection.open(init, onOutcome, onClosed, init.requestTimeoutMs),
        connections: init.sockets,
        maxConnections: init.maxConnections,
        requestTimeoutMs: init.requestTimeoutMs,
        noun: 'WebSocket',
      },
      threadIndex,
    );
  }
}
