// The streaming WebSocket endpoint as a `WebSocketRoute` the front ends attach: subprotocol
// negotiation (which picks the frame codec), one `WsSession` per accepted socket, and the sockets
// still open, which shutdown() closes with 1001 once each has answered its requests.

import type { InferenceServerError } from '../errors.js';
import type { WebSocketRoute } from '../http/front-end.js';
import { RestrictedApis } from '../http/restricted-apis.js';
import {
  DEFAULT_CLIENT_MEMORY_BUDGET_BYTES,
  memoryBudget,
  type MemoryBudget,
} from '../memory/client-budget.js';
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
  /** The process's client-memory budget (default: one of its own, of the default size). */
  readonly budget?: MemoryBudget;
  /** Counters shared with the other front-end threads' routes (default: this route's own). */
  readonly counters?: WsCounters;
  readonly onServerError?: (err: InferenceServerError, tenant?: string) => void;
  /** --tenant-header, lower-case: read once from the upgrade request, the socket's tenant. */
  readonly tenantHeader?: string;
}

export interface StreamingRoute extends WebSocketRoute {
  readonly limits: WebSocketLimits;
  readonly counters: WsCounters;
  /**
   * The server is shutting down: each socket, and any opened from now on, answers the requests it
   * has in flight, refuses new ones and closes with 1001 "server shutting down". Resolves when
   * every socket is closed (the client answered the close, or the connection dropped).
   */
  shutdown(): Promise<void>;
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
  const counters = options.counters ?? new WsCounters();
  const budget = options.budget ?? memoryBudget(DEFAULT_CLIENT_MEMORY_BUDGET_BYTES);
  const restricted = options.restricted ?? new RestrictedApis([]);
  const sessions = new Set<WsSession>();
  let shuttingDown = false;
  let closedWaiters: (() => void)[] = [];
  const gone = (session: WsSession): void => {
    sessions.delete(session);
    if (sessions.size > 0) return;
    const waiters = closedWaiters;
    closedWaiters = [];
    for (const wake of waiters) wake();
  };
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
    open: (connection, protocol, headers) => {
      const session: WsSession = new WsSession(connection, {
        plane,
        codec: codecFor(isWsProtocol(protocol) ? protocol : MSGPACK_PROTOCOL),
        limits,
        counters,
        budget,
        access: restricted.accessFor((name) => headers.get(name)),
        ...(options.onServerError !== undefined ? { onServerError: options.onServerError } : {}),
        ...(options.tenantHeader !== undefined && {
          tenant: headers.get(options.tenantHeader) ?? '',
        }),
        onGone: () => gone(session),
      });
      sessions.add(session);
      if (shuttingDown) session.shutdown();
      return session;
    },
    shutdown: () => {
      shuttingDown = true;
      for (const session of [...sessions]) session.shutdown();
      if (sessions.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => closedWaiters.push(resolve));
    },
  };
}
