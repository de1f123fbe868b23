// The streaming WebSocket endpoint as a `WebSocketRoute` the front ends attach: subprotocol
// negotiation (which picks the frame codec) and one `WsSession` per accepted socket.

import type { InferenceServerError } from '../errors.js';
import type { WebSocketRoute } from '../http/front-end.js';
import { RestrictedApis } from '../http/restricted-apis.js';
import { flatbuffersCodec } from './flatbuffers-frames.js';
import { msgpackCodec } from './msgpack-frames.js';
import { WsCounters } from './ws-counters.js';
import type { FrameCodec } from './ws-frames.js';
import {
  DEFAULT_WS_LIMITS,
  FLATBUFFERS_PROTOCOL,
  MSGPACK_PROTOCOL,
  WS_PATH,
  WS_PROTOCOLS,
  isWsProtocol,
  type WebSocketLimits,
  type WsProtocol,
} from './ws-protocol.js';
import { WsSession, type SessionPlane } from './ws-session.js';

export interface StreamingRouteOptions {
  readonly limits?: Partial<WebSocketLimits>;
  /** --http-restricted-api: checked against each socket's upgrade headers (default: none). */
  readonly restricted?: RestrictedApis;
  readonly onServerError?: (err: InferenceServerError) => void;
}

export interface StreamingRoute extends WebSocketRoute {
  readonly limits: WebSocketLimits;
  readonly counters: WsCounters;
}

function codecFor(protocol: WsProtocol): FrameCodec {
  switch (protocol) {
    case MSGPACK_PROTOCOL:
      return msgpackCodec;
    case FLATBUFFERS_PROTOCOL:
      return flatbuffersCodec;
  }
}

export function streamingRoute(
  plane: SessionPlane,
  options: StreamingRouteOptions = {},
): StreamingRoute {
  const limits: WebSocketLimits = Object.freeze({ ...DEFAULT_WS_LIMITS, ...options.limits });
  const counters = new WsCounters();
  const restricted = options.restricted ?? new RestrictedApis([]);
  return {
    path: WS_PATH,
    maxMessageBytes: limits.maxFrameBytes,
    limits,
    counters,
    selectProtocol: (offered) => {
      // No Sec-WebSocket-Protocol header: msgpack, and no protocol in the answer (RFC 6455 forbids
      // answering one the client did not offer).
      if (offered.length === 0) return { protocol: '' };
      const known = offered.find(isWsProtocol);
      if (known !== undefined) return { protocol: known };
      return {
        refused:
          `unsupported WebSocket subprotocol: expected one of ${WS_PROTOCOLS.join(', ')}, ` +
          `got ${offered.join(', ').slice(0, 200)}`,
      };
    },
    // The upgrade is accepted whatever its headers: the restrictions are decided here, once, and
    // each frame is checked against them (even when every kind of frame is refused).
    open: (connection, protocol, headers) =>
      new WsSession(connection, {
        plane,
        codec: codecFor(isWsProtocol(protocol) ? protocol : MSGPACK_PROTOCOL),
        limits,
        counters,
        access: restricted.accessFor((name) => headers.get(name)),
        ...(options.onServerError !== undefined ? { onServerError: options.onServerError } : {}),
      }),
  };
}
