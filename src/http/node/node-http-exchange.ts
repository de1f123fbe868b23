// One node:http request/response pair: feeds node's body and close events to the shared
// `HttpExchange`, and writes the reply with backpressure honoured. Abort is a response that closes
// before it finished.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { fail } from '../../errors.js';
import type { MemoryBudget } from '../../memory/client-budget.js';
import type { HttpHandler } from '../front-end.js';
import type { RequestHead } from '../http-call.js';
import { HttpExchange } from '../http-exchange.js';
import type { WireReply } from '../reply-body.js';

export class NodeHttpExchange extends HttpExchange {
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #onRefused: () => void;
  readonly #bodyTimeoutMs: number;

  /** `onRefused` runs when this request is refused for its framing or size (see writeRejection). */
  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    head: RequestHead,
    handler: HttpHandler,
    maxBodyBytes: number,
    onRefused: () => void,
    bodyTimeoutMs: number,
    budget?: MemoryBudget,
  ) {
    super(head, handler, maxBodyBytes, budget);
    this.#req = req;
    this.#res = res;
    this.#onRefused = onRefused;
    this.#bodyTimeoutMs = bodyTimeoutMs;
  }

  start(): void {
    // 'close' before 'finish' means the connection went away (or close() destroyed it).
    this.#res.once('close', () => this.abandon());
    // Node reports a connection lost mid-body as an 'error' on the request ("aborted"); the
    // response's 'close' above already covers it, so this listener only keeps it from being thrown.
    this.#req.on('error', () => undefined);
    if (!this.begin()) return;
    // After a rejection node discards the rest of the body; bodyChunk ignores what still arrives.
    // While the body arrives, a silence longer than the body timeout closes the connection (the
    // socket's inactivity timer, reset by every byte); cleared once the body is in, so a long
    // inference is never cut off by it.
    // The listener is the request's (node emits 'timeout' on an incomplete request), so keep-alive
    // sockets do not collect one per request.
    const socket = this.#req.socket;
    this.#req.setTimeout(this.#bodyTimeoutMs, () => socket.destroy());
    this.#req.on('data', (chunk: Buffer) => this.bodyChunk(chunk));
    this.#req.once('end', () => {
      socket.setTimeout(0);
      this.bodyEnd();
    });
  }

  /**
   * node's parser refused the bytes of this request's body (a malformed chunk: llhttp reports it
   * to the server's clientError hook, not to the request). While the body is still being read the
   * request is refused with a 400 and the connection closes, like any framing error. Returns false
   * when the error is not about this body (node saw the body complete, and the error is about a
   * next request, though this exchange may not have seen 'end' yet) or a reply may already be
   * under way: the caller then drops the connection.
   */
  refuseBody(reason: string): boolean {
    if (this.state !== 'reading' || this.#req.complete) return false;
    this.bodyFailed(fail('BAD_REQUEST', `malformed HTTP request body: ${reason}`));
    return true;
  }

  protected breakConnection(): void {
    // Destroying the socket reports the unfinished reply to the client (and runs the abort path).
    this.#res.destroy();
  }

  protected writeRejection(wire: WireReply): void {
    // node's parser has already read, and may already have emitted, requests pipelined behind this
    // one; the front end drops them unserved (their bytes may be this request's unread body).
    this.#onRefused();
    const headers: OutgoingHttpHeaders = Object.fromEntries(wire.headers);
    headers['content-length'] = wire.totalBytes;
    // With "Connection: close" node ends the socket once this reply is out, after discarding
    // whatever body bytes are already buffered.
    headers.connection = 'close';
    this.#res.writeHead(wire.status, headers);
    this.#res.end(wire.chunks[0]);
  }

  protected async writeReply(wire: WireReply): Promise<void> {
    const res = this.#res;
    // 'finish': the last byte is handed to the socket, which no longer needs our chunks.
    res.once('finish', () => this.delivered());
    const headers: OutgoingHttpHeaders = Object.fromEntries(wire.headers);
    headers['content-length'] = wire.totalBytes;
    res.writeHead(wire.status, headers);
    if (wire.chunks.length === 0) {
      res.end();
      return;
    }
    const last = wire.chunks.length - 1;
    for (const [i, chunk] of wire.chunks.entries()) {
      if (i === last) {
        res.end(chunk);
        return;
      }
      // write() keeps a reference and returns false once its buffer passes the high-water mark;
      // waiting for 'drain' bounds how much of a large reply is queued in the socket at once.
      if (!res.write(chunk)) await drainOrClose(res);
      if (this.state !== 'writing') return; // the client went away while we waited
    }
  }
}

/** Resolves on 'drain', or on 'close' (a destroyed socket never drains). */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
