// The uWebSockets.js front end: owns the uWS app and its listening socket, copies each request's
// head out of uWS's stack-allocated `HttpRequest`, and hands the rest to a `UwsExchange`.
//
// It takes the already-loaded native module (see uws-loader.ts) rather than importing it, so that
// importing this file can never fail on a Node release the binary does not support.

import type { HttpRequest, HttpResponse, us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import type { ConnectionLimits, FrontEnd, FrontEndOptions, HttpHandler } from '../front-end.js';
import type { RequestHead } from '../http-call.js';
import { HttpDrain } from '../http-drain.js';
import { readHeaders } from './uws-headers.js';
import type { UwsApp, UwsModule } from './uws-loader.js';
import { UwsExchange } from './uws-exchange.js';
import { attachUwsWebSocket, type UwsWebSocketHandle } from './uws-websocket.js';

/**
 * uWS 20.30's parser closes the connection, without a reply, on a Content-Length of ten or more
 * digits. Limits up to this still get the clean 400 for an over-limit body.
 */
export const UWS_MAX_CONTENT_LENGTH = 999_999_999;

/**
 * uWebSockets.js 20.30's fixed HTTP timeouts, in ms: a head trickled a line every 3 s, a body a byte
 * every 3 s, a connection that sends nothing and an idle keep-alive connection are all closed at
 * 10-12 s (its timer runs in 4 s steps). None can be changed from JavaScript.
 */
export const UWS_FIXED_TIMEOUT_MS = 10_000;

/** Why uWS cannot honour `limits`, or undefined when they are its fixed behaviour. */
export function uwsLimitsReason(limits: ConnectionLimits | undefined): string | undefined {
  const timeouts: [string, number | undefined][] = [
    ['--http-header-timeout-secs', limits?.headersTimeoutMs],
    ['--http-body-timeout-secs', limits?.bodyTimeoutMs],
    ['--http-idle-timeout-secs', limits?.keepAliveTimeoutMs],
  ];
  for (const [flag, ms] of timeouts) {
    if (ms !== undefined && ms !== UWS_FIXED_TIMEOUT_MS) {
      return `${flag}=${ms / 1000}: uWebSockets.js 20.30's HTTP timeouts are fixed at 10 s`;
    }
  }
  const cap = limits?.maxConnections ?? 0;
  if (cap > 0) return `--http-max-connections=${cap}: uWebSockets.js 20.30 cannot cap connections`;
  return undefined;
}

export class UwsFrontEnd implements FrontEnd {
  readonly kind = 'uws';
  readonly #uws: UwsModule;
  readonly #options: FrontEndOptions;
  #app: UwsApp | undefined;
  #listenSocket: us_listen_socket | undefined;
  /** Exchanges not yet done, for close() on builds without app.close(). */
  readonly #open = new Set<UwsExchange>();
  #websockets: UwsWebSocketHandle | undefined;
  readonly #drain = new HttpDrain();

  /** Throws when `options.limits` asks for what uWS cannot do (see uwsLimitsReason). */
  constructor(uws: UwsModule, options: FrontEndOptions) {
    const reason = uwsLimitsReason(options.limits);
    if (reason !== undefined) throw new Error(reason);
    this.#uws = uws;
    this.#options = options;
  }

  listen(handler: HttpHandler): Promise<number> {
    if (this.#app !== undefined)
      return Promise.reject(new Error('the uWS front end is already listening'));
    const { host, port } = this.#options;
    const app = this.#uws.App();
    // uWS matches the WebSocket route on Upgrade requests before the catch-all below; an Upgrade
    // to any other path is served as plain HTTP by the catch-all.
    if (this.#options.websocket !== undefined) {
      this.#websockets = attachUwsWebSocket(app, this.#options.websocket);
    }
    // The exchange closes the connection after a reply with `Connection: close` (added in a drain).
    const drainingHandler = this.#drain.wrap(handler);
    app.any('/*', (res, req) => this.#onRequest(res, req, drainingHandler));
    return new Promise((resolve, reject) => {
      // Calls back synchronously, with false when the address is taken or not available.
      // 0 is LIBUS_LISTEN_DEFAULT, which binds with SO_REUSEPORT.
      const flags = this.#options.reusePort === true ? 0 : this.#uws.LIBUS_LISTEN_EXCLUSIVE_PORT;
      app.listen(host, port, flags, (listenSocket) => {
        if (listenSocket === false) {
          reject(
            new Error(
              `uWebSockets.js could not listen on ${host}:${port} (in use or not available)`,
            ),
          );
          return;
        }
        this.#app = app;
        this.#listenSocket = listenSocket;
        resolve(this.#uws.us_socket_local_port(listenSocket));
      });
    });
  }

  beginDrain(): void {
    this.#drain.begin();
  }

  whenIdle(): Promise<void> {
    return this.#drain.whenIdle();
  }

  stopAccepting(): Promise<void> {
    // Closes only the listening socket: open keep-alive connections are still served (Triton serves
    // an existing connection after SIGINT) until close().
    if (this.#listenSocket !== undefined) {
      this.#uws.us_listen_socket_close(this.#listenSocket);
      this.#listenSocket = undefined;
    }
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.stopAccepting();
    const app = this.#app;
    this.#app = undefined;
    if (app === undefined) return;
    if (typeof app.close === 'function') {
      // Force-closes every connection; in-flight exchanges see onAborted.
      app.close();
    } else {
      // Older builds can only close the connections that have a response object in hand; idle
      // keep-alive sockets then live until uWS's 10 s idle timeout.
      for (const exchange of [...this.#open]) exchange.forceClose();
      this.#websockets?.terminateAll();
    }
  }

  #onRequest(res: HttpResponse, req: HttpRequest, handler: HttpHandler): void {
    const exchange = new UwsExchange(
      res,
      readHead(req),
      handler,
      this.#options.maxBodyBytes,
      (settled) => {
        if (this.#open.delete(settled)) this.#drain.closed();
      },
      this.#options.clientBudget,
    );
    this.#open.add(exchange);
    this.#drain.opened();
    exchange.start();
  }
}

/** Copies everything needed from `req` now: uWS allocates it on the stack for this callback only. */
function readHead(req: HttpRequest): RequestHead {
  // getQuery() returns undefined, not "", when the URL has no "?" (despite its d.ts).
  const query: string | undefined = req.getQuery();
  return {
    method: req.getMethod().toUpperCase(), // uWS lower-cases methods
    path: req.getUrl(),
    query: query ?? '',
    headers: readHeaders(req),
  };
}
