// The one front-end adapter interface. An adapter owns a listening socket and the HTTP framing
// rules of its library (uWebSockets.js or node:http); it turns each request into an `HttpCall`,
// hands it to the transport-agnostic handler, and writes the `HttpReply` back. It knows nothing of
// models, tensors or the KServe protocol.

import type { AbortLike } from '../execution/abort-like.js';
import type { MemoryBudget } from '../memory/client-budget.js';

export interface HttpCall {
  /** Upper-case ('GET', 'POST'), whatever case the adapter's library reports. */
  readonly method: string;
  /** The path without the query string, not percent-decoded. */
  readonly path: string;
  readonly query: string;
  /** Lower-case header name -> value. */
  header(name: string): string | undefined;
  /** The whole body, read under the adapter's size limit (empty for GET; empty once released). */
  readonly body: Uint8Array;
  /**
   * The handler has decoded the body: the adapter drops its references to it, so a large body
   * (JSON text, say) can be collected while the request it became runs. `body` is empty after.
   */
  releaseBody?(): void;
  /** Aborted when the client goes away before the reply is written. */
  readonly signal: AbortLike;
}

export interface HttpReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as UTF-8; a list of chunks is written in order without concatenation. */
  readonly body: string | Uint8Array | readonly Uint8Array[];
  /**
   * Called exactly once when the adapter holds no more references to `body`: `true` once the last
   * byte is handed to the socket, `false` if the client went away first (or before the reply was
   * ready). Chunks that view pooled tensor memory are released here, not when the handler returns:
   * a large reply is written under backpressure long after that.
   */
  readonly onFinished?: (delivered: boolean) => void;
}

export type HttpHandler = (call: HttpCall) => Promise<HttpReply> | HttpReply;

export interface FrontEndOptions {
  readonly host: string;
  readonly port: number;
  /** Bodies over this many bytes get 400 before any allocation (--http-max-input-size). */
  readonly maxBodyBytes: number;
  /**
   * The process's client-memory budget (--client-memory-budget): each request body is reserved
   * from it while it is read and until it is decoded, and one that does not fit gets 503. Unset:
   * bodies are not counted.
   */
  readonly clientBudget?: MemoryBudget;
  /**
   * The WebSocket endpoint, when enabled: each adapter attaches it to the same listening port,
   * matched on Upgrade requests for `path` before its catch-all HTTP route.
   */
  readonly websocket?: WebSocketRoute;
  /**
   * Connection limits (--http-header-timeout-secs, --http-body-timeout-secs,
   * --http-idle-timeout-secs, --http-max-connections). Unset: 10 s each and no cap, uWS 20.30's
   * fixed behaviour; the uWS adapter accepts only those values (select-front-end.ts falls back to
   * node:http for others).
   */
  readonly limits?: ConnectionLimits;
  /**
   * Listen with SO_REUSEPORT, so that other threads (--http-thread-count) or processes
   * (--reuse-http-port) can listen on the same port and the kernel spreads new connections over
   * them. Off: a port already taken fails the listen (uWS would otherwise share it silently).
   * node:http can only from Node 22.12 (see reusePortUnsupported in select-front-end.ts).
   */
  readonly reusePort?: boolean;
}

export interface ConnectionLimits {
  /** Time to receive a request's head (slowloris on the head). */
  readonly headersTimeoutMs?: number;
  /** Longest silence while a request's body arrives. */
  readonly bodyTimeoutMs?: number;
  /** Idle time before a keep-alive connection is closed. */
  readonly keepAliveTimeoutMs?: number;
  /** Open connections at most, upgraded WebSockets included; 0 or unset: no cap. */
  readonly maxConnections?: number;
}

/**
 * One accepted WebSocket, as the adapter exposes it to the protocol layer. Every method is safe to
 * call after the socket closed (it then does nothing).
 */
export interface WebSocketConnection {
  /**
   * Sends one binary message. The adapter (or its library) copies or frames `bytes` before this
   * returns, so the caller may reuse them. Returns false when the message was refused (socket
   * closed, or over the library's hard backpressure limit); a message that is merely buffered
   * returns true, and `bufferedAmount()` says how much is waiting.
   */
  send(bytes: Uint8Array): boolean;
  /** Bytes handed to `send` that the kernel has not taken yet. */
  bufferedAmount(): number;
  /** Starts a closing handshake with `code` and a reason of at most 123 UTF-8 bytes. */
  close(code: number, reason: string): void;
}

/** What the protocol layer does with one socket's events. The adapter calls these in order. */
export interface WebSocketPeer {
  /**
   * One whole message. When `volatile` is true `bytes` is valid only until this returns (uWS
   * neuters the memory): anything kept must be copied before returning.
   */
  message(bytes: Uint8Array, binary: boolean, volatile: boolean): void;
  /** The socket's send buffer drained below the library's threshold. */
  drain(): void;
  /** The socket is gone (either side closed it, or the connection dropped). Called once. */
  closed(): void;
}

export interface WebSocketRoute {
  /** The request path that upgrades, e.g. "/v2/ws". */
  readonly path: string;
  /** Largest message accepted; the library closes with 1009 past it, before buffering it whole. */
  readonly maxMessageBytes: number;
  /**
   * Picks the subprotocol from the client's `Sec-WebSocket-Protocol` list (already split and
   * trimmed; empty when the header is absent). Returns the protocol to answer with ("" to answer
   * none), or an error sentence: the upgrade is then refused with 400.
   */
  selectProtocol(offered: readonly string[]): { protocol: string } | { refused: string };
  /**
   * A socket was accepted with `protocol` (as returned by selectProtocol). `headers` are the
   * upgrade request's, read during the upgrade as an `HttpCall`'s are (lower-case names, a
   * repeated header's values joined with ", "): the only request headers a socket ever has.
   */
  open(
    connection: WebSocketConnection,
    protocol: string,
    headers: ReadonlyMap<string, string>,
  ): WebSocketPeer;
}

/** Splits a Sec-WebSocket-Protocol header into its tokens. */
export function offeredProtocols(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

export interface FrontEnd {
  /** 'uws' or 'node-http', for the start-up log line. */
  readonly kind: string;
  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(handler: HttpHandler): Promise<number>;
  /**
   * Starts the shutdown drain: connections already open are still served, but every reply from now
   * on says `Connection: close` and its connection closes once it is written.
   */
  beginDrain(): void;
  /** Resolves the next time no request is being read, handled or written (at once if none is). */
  whenIdle(): Promise<void>;
  /** Stops accepting new connections; in-flight replies still complete. */
  stopAccepting(): Promise<void>;
  /** Closes every connection. */
  close(): Promise<void>;
}
