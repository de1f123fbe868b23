// The node:http front end: the fallback where the uWS binary cannot load, with the same limits,
// error bodies and lifecycle as the uWS adapter. Owns the http.Server, its timeouts (slowloris) and
// the replies to requests node's own parser refuses.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FrontEnd, FrontEndOptions, HttpHandler } from '../front-end.js';
import { splitTarget, type RequestHead } from '../http-call.js';
import { HttpDrain } from '../http-drain.js';
import { takeOverBothFramingHeaders } from './node-framing-takeover.js';
import { readHeaders } from './node-headers.js';
import { NodeHttpExchange } from './node-http-exchange.js';
import { attachNodeWebSocket, type NodeWebSocketHandle } from './node-websocket.js';

// The defaults are uWebSockets.js 20.30's fixed behaviour (measured: a head trickled a line every
// 3 s, a body a byte every 3 s and a connection that sends nothing are all closed at 10-12 s), so
// the two front ends behave alike unless a flag says otherwise.
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_BODY_TIMEOUT_MS = 10_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 10_000;
/**
 * node's bound on receiving a whole request, head and body, whatever the pace: a client sending
 * one byte just inside the body timeout forever is still cut off. Five minutes covers a 64 MiB
 * body on a slow link.
 */
const REQUEST_TIMEOUT_MS = 300_000;
// node checks the two request timeouts on this period (default 30 s, which would let a slow client
// hold a socket for up to four times headersTimeout). The check walks the connection list: cheap.
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/**
 * How long a socket answered by the clientError hook (408 after a head or request timeout, 400 for a
 * request node's parser refused) stays half-closed before it is destroyed. With the check interval
 * above, a timed-out socket is gone at most 1.5 s after its timeout.
 */
const CLOSE_LINGER_MS = 500;

export class NodeHttpFrontEnd implements FrontEnd {
  readonly kind = 'node-http';
  readonly #options: FrontEndOptions;
  #server: http.Server | undefined;
  #closed: Promise<void> | undefined;
  #websockets: NodeWebSocketHandle | undefined;
  readonly #drain = new HttpDrain();
  /**
   * Requests with a reply in progress, per socket. When node's parser fails on such a socket
   * (bytes past a Content-Length parsed as a next request) a 400 written now would interleave with
   * that reply, so the socket is closed instead.
   */
  readonly #busy = new WeakMap<Duplex, number>();
  /** The latest request on each socket: the one whose body node's parser may refuse mid-read. */
  readonly #latest = new WeakMap<Duplex, NodeHttpExchange>();
  /**
   * Connections on which a request was refused for its framing or size. What node's parser finds
   * after it on the connection is not a request the client framed (it may be the refused request's
   * own body, a smuggled request): it is never handed to the handler, and the connection closes
   * once the 400 is out.
   */
  readonly #refused = new WeakSet<Duplex>();
  /** Sockets read by a framing takeover (node-framing-takeover.ts): node's later errors are moot. */
  readonly #takenOver = new WeakSet<Duplex>();
  /** The handler wrapped for drains, kept for requests served outside node's parser. */
  #handler: HttpHandler | undefined;

  constructor(options: FrontEndOptions) {
    this.#options = options;
  }

  async listen(handler: HttpHandler): Promise<number> {
    if (this.#server !== undefined) throw new Error('the node:http front end is already listening');
    const o = this.#options.limits ?? {};
    // node closes the connection after a reply with `Connection: close`, which this adds in a drain.
    const drainingHandler = this.#drain.wrap(handler);
    this.#handler = drainingHandler;
    const server = http.createServer(
      {
        keepAlive: true, // TCP keep-alive probes on accepted sockets; HTTP keep-alive is the default
        headersTimeout: o.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
        requestTimeout: Math.max(REQUEST_TIMEOUT_MS, o.headersTimeoutMs ?? 0),
        connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
        noDelay: true,
      },
      (req, res) => this.#onRequest(req, res, drainingHandler),
    );
    server.keepAliveTimeout = o.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
    // node closes a connection over the cap as soon as it is accepted ('drop' event), before a byte
    // is read: the client sees the connection close, the server spends nothing on it.
    if ((o.maxConnections ?? 0) > 0) server.maxConnections = o.maxConnections ?? 0;
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
      this.#onClientError(error, socket),
    );
    // The WebSocket route shares the port through the 'upgrade' event (ws's handleUpgrade).
    const websocket = this.#options.websocket;
    if (websocket !== undefined) this.#websockets = attachNodeWebSocket(server, websocket);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const { port, host, reusePort } = this.#options;
      // `reusePort` is a listen option from Node 22.12 on; older versions ignore it, and
      // select-front-end.ts never asks them for it.
      server.listen({ port, host, ...(reusePort === true && { reusePort: true }) }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
    this.#closed = new Promise((resolve) => server.once('close', () => resolve()));
    return (server.address() as AddressInfo).port;
  }

  beginDrain(): void {
    this.#drain.begin();
  }

  whenIdle(): Promise<void> {
    return this.#drain.whenIdle();
  }

  stopAccepting(): Promise<void> {
    const server = this.#server;
    // net.Server's close, not http.Server's: the http one also reaps idle keep-alive connections
    // and stops the timeout checks. Like uWS's listen-socket close, only the listening socket goes;
    // open connections are still served (Triton serves an existing connection after SIGINT).
    if (server?.listening === true) net.Server.prototype.close.call(server);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    server.close(); // also clears node's timeout-check interval
    server.closeIdleConnections();
    server.closeAllConnections(); // in-flight exchanges see 'close' before 'finish': aborted
    // Upgraded sockets left node:http's connection list at the upgrade: closed here.
    this.#websockets?.terminateAll();
    await this.#closed;
  }

  #onRequest(req: IncomingMessage, res: ServerResponse, handler: HttpHandler): void {
    const socket = req.socket;
    if (this.#refused.has(socket)) {
      req.resume();
      return;
    }
    this.#busy.set(socket, (this.#busy.get(socket) ?? 0) + 1);
    this.#drain.opened();
    // 'close' follows 'finish' (the reply handed to the socket) or the connection's end: once each.
    res.once('close', () => {
      this.#busy.set(socket, (this.#busy.get(socket) ?? 1) - 1);
      this.#drain.closed();
    });
    const refused = (): void => void this.#refused.add(socket);
    const exchange = new NodeHttpExchange(
      req,
      res,
      readHead(req),
      handler,
      this.#options.maxBodyBytes,
      refused,
      this.#options.limits?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
      this.#options.clientBudget,
    );
    this.#latest.set(socket, exchange);
    exchange.start();
  }

  #onClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
    // A taken-over socket has its own timeouts and reply; node's parser may still report on it.
    if (this.#takenOver.has(socket)) return;
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    if ((this.#busy.get(socket) ?? 0) > 0) {
      // A malformed chunk in the body being read: that request gets its 400 and the connection
      // closes once it is out (node's parser has stopped: nothing after it is read). Otherwise a
      // reply may be under way, and a 400 written now would interleave with it.
      // The end of input inside a body (HPE_INVALID_EOF_STATE) leaves nobody to answer.
      const malformed = error.code !== 'HPE_INVALID_EOF_STATE';
      if (!malformed || this.#latest.get(socket)?.refuseBody(parserDetail(error)) !== true) {
        socket.destroy();
      }
      return;
    }
    if (this.#takeOver(error, socket)) return;
    const [status, message] = clientErrorReply(error);
    const body = JSON.stringify({ error: message });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    // end() only half-closes: node's sockets allow half-open connections, so the fd would be held
    // until the client closes its side, and one that never reads or closes held it for good (and
    // its slot under --http-max-connections). A short linger lets a well-behaved client read the
    // answer before the close; then the socket goes whatever the client does.
    const linger = setTimeout(() => socket.destroy(), CLOSE_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  }

  /** Serves a request with both Transfer-Encoding and Content-Length as Triton does, if it is one. */
  #takeOver(error: NodeJS.ErrnoException, socket: Duplex): boolean {
    const handler = this.#handler;
    if (handler === undefined || !(socket instanceof net.Socket)) return false;
    this.#drain.opened();
    const taken = takeOverBothFramingHeaders(error, socket, {
      handler,
      maxBodyBytes: this.#options.maxBodyBytes,
      ...(this.#options.clientBudget !== undefined && { budget: this.#options.clientBudget }),
      bodyTimeoutMs: this.#options.limits?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
      onSettled: () => this.#drain.closed(),
    });
    if (taken) this.#takenOver.add(socket);
    else this.#drain.closed();
    return taken;
  }
}

/** Status and message for a request node's parser refused; the parser's reason is safe to show. */
function clientErrorReply(error: NodeJS.ErrnoException): [number, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'request header fields too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request was not received in time'];
    default:
      return [400, `malformed HTTP request: ${parserDetail(error)}`];
  }
}

/** llhttp errors carry a short `reason` ("Transfer-Encoding can't be present with Content-Length"). */
function parserDetail(error: NodeJS.ErrnoException): string {
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : (error.code ?? 'parse error');
}

function readHead(req: IncomingMessage): RequestHead {
  const { path, query } = splitTarget(req.url ?? '/');
  return { method: req.method ?? 'GET', path, query, headers: readHeaders(req) };
}
