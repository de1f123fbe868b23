// The WebSocket protocol's constants: the path, the subprotocol names that pick an encoding, the
// close codes, and the per-socket limits with their defaults. docs/websocket-protocol.md describes
// each; a test checks the doc names the same values.

/** The reason sent with GOING_AWAY at shutdown. */
export const SHUTDOWN_CLOSE_REASON = 'server shutting down';

/** The request path that upgrades to the streaming protocol. */
export const WS_PATH = '/v2/ws';

/** Subprotocols, in the server's order of preference. The first is the default. */
export const MSGPACK_PROTOCOL = 'infernode.msgpack.v1';
export const FLATBUFFERS_PROTOCOL = 'infernode.flatbuffers.v1';
export const WS_PROTOCOLS = Object.freeze([MSGPACK_PROTOCOL, FLATBUFFERS_PROTOCOL] as const);
export type WsProtocol = (typeof WS_PROTOCOLS)[number];

export function isWsProtocol(p: string): p is WsProtocol {
  return (WS_PROTOCOLS as readonly string[]).includes(p);
}

/** RFC 6455 close codes the server uses, with the reason each stands for. */
export const CLOSE_CODES = Object.freeze({
  /** The server is shutting down: sent once the socket's requests in flight are answered. */
  GOING_AWAY: 1001,
  /** A text frame: the protocol is binary only. */
  UNSUPPORTED_DATA: 1003,
  /** A frame that cannot be decoded and has no readable `id` to answer. */
  INVALID_PAYLOAD: 1007,
  /** The client did not read its responses: unsent bytes passed the limit. */
  POLICY_VIOLATION: 1008,
  /** A frame over the size limit (the WebSocket library sends this itself). */
  MESSAGE_TOO_BIG: 1009,
  /** The server's memory for unread responses (--client-memory-budget) is full: retry later. */
  TRY_AGAIN_LATER: 1013,
});

export interface WebSocketLimits {
  /** Largest frame accepted, in bytes (--ws-max-frame-size). */
  readonly maxFrameBytes: number;
  /** Requests one socket may have in flight (--ws-max-inflight); over it: an error frame. */
  readonly maxInflight: number;
  /**
   * Response bytes one socket may have waiting for the client to read (in the session's queue and
   * the socket's buffer together). A client that lets more pile up is closed with 1008.
   */
  readonly maxQueuedBytes: number;
  /** Above this many bytes buffered in the socket, responses wait in the session's queue. */
  readonly highWaterBytes: number;
}

export const DEFAULT_WS_LIMITS: WebSocketLimits = Object.freeze({
  maxFrameBytes: 64 * 1024 * 1024,
  maxInflight: 1024,
  // A quarter of the default client-memory budget: four stalled sockets fill it, one cannot.
  maxQueuedBytes: 64 * 1024 * 1024,
  highWaterBytes: 1024 * 1024,
});

/** Deepest nesting a frame may have: the deepest legal path is frame → inputs → input → data. */
export const MAX_FRAME_DEPTH = 8;

/** Longest request id, in UTF-8 bytes (string ids) — ids are echoed in every response. */
export const MAX_ID_BYTES = 256;

/**
 * Largest integer id: 2^53-1, the largest integer a JavaScript number (and so every JS msgpack
 * client) holds exactly. Ids at or above 2^32 travel as msgpack uint 64 both ways.
 */
export const MAX_INTEGER_ID = Number.MAX_SAFE_INTEGER;
