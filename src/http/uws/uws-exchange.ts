// One uWebSockets.js request/response pair: feeds uWS's body and abort events to the shared
// `HttpExchange`, and writes the reply under backpressure.
//
// uWS rules this file is built around (measured on @trufflesuite/uws-js-unofficial 20.30):
// - `res` must not be touched once `onAborted` has fired or the response has completed; the native
//   object is gone and any call can crash the process. The exchange state guards every use.
// - `onData` chunks are views of memory uWS reuses and neuters when the callback returns: the
//   shared body accumulator copies them before the callback returns.
// - Writes made outside uWS's own callbacks (after an await) go through `res.cork`, which batches the
//   status line, headers and first body bytes into one syscall.

import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { MemoryBudget } from '../../memory/client-budget.js';
import { fail, type InferenceServerError } from '../../errors.js';
import type { BodyFraming } from '../body-framing.js';
import type { HttpHandler } from '../front-end.js';
import type { RequestHead } from '../http-call.js';
import { HttpExchange } from '../http-exchange.js';
import type { WireReply } from '../reply-body.js';

export class UwsExchange extends HttpExchange {
  readonly #res: HttpResponse;
  readonly #onSettled: (exchange: UwsExchange) => void;
  // The reply being written: chunk `#index` starts at body offset `#chunkStart`.
  #wire: WireReply | undefined;
  #index = 0;
  #chunkStart = 0;
  /** Set by onAborted whatever the exchange state: `res` is gone. */
  #gone = false;

  constructor(
    res: HttpResponse,
    head: RequestHead,
    handler: HttpHandler,
    maxBodyBytes: number,
    onSettled: (exchange: UwsExchange) => void,
    budget?: MemoryBudget,
  ) {
    super(head, handler, maxBodyBytes, budget);
    this.#res = res;
    this.#onSettled = onSettled;
  }

  /** Called synchronously from the route callback. */
  start(): void {
    // First, before anything can await: uWS requires an abort handler on every response not
    // answered inside the route callback.
    this.#res.onAborted(() => this.#onAborted());
    if (!this.begin()) return;
    this.#res.onData((chunk, isLast) => {
      if (this.bodyChunk(new Uint8Array(chunk)) && isLast) this.bodyEnd();
    });
  }

  /** Force-closes the connection (used by close() on builds without `app.close()`). */
  forceClose(): void {
    if (this.#gone || this.state === 'done' || this.state === 'aborted') return;
    this.#res.close(); // runs onAborted synchronously
  }

  protected breakConnection(): void {
    this.forceClose();
  }

  /**
   * Every chunked body is refused: uWS 20.30's chunked parser cannot be made strict. It skips the
   * two bytes after each chunk's data without looking at them, skips anything up to LF after a
   * size, and has no trailers, so a malformed body reads as a different one and the bytes after it
   * as a next request (measured: `2\r\n{}XX0\r\n\r\n` then a GET answered 400 then 200; a
   * trailer left the connection hanging). JavaScript never sees those bytes. The 400 is written a
   * turn later (writeRejection), so nothing uWS parses after the head is ever routed.
   */
  protected framingRefusal(framing: BodyFraming): InferenceServerError | undefined {
    if (framing.kind !== 'chunked') return undefined;
    return fail(
      'BAD_REQUEST',
      'Transfer-Encoding: chunked is not accepted by the uWebSockets.js front end: send ' +
        'Content-Length, or serve with --http-front-end=node',
    );
  }

  /**
   * A framing or size error: one 400 with `Connection: close`, then the connection closes, and
   * nothing the client sent after the refused request is served.
   *
   * The reply is written on the next turn of the event loop, never inside the uWS callback that
   * found the error. uWS 20.30 keeps parsing the bytes of the read that carried the refused request
   * after the callback returns, and a request pipelined behind it in that read is routed and served
   * even after `end(body, true)` (measured: 400 then 200 on one connection, the smuggling shape).
   * With the reply still pending, uWS instead closes the connection when the next request's head
   * arrives (it does not pipeline behind a pending response): the follower is never routed, and the
   * client sees the connection close without the 400. With nothing behind it, the 400 goes out and
   * `end(body, true)` closes the connection once it is written.
   */
  protected writeRejection(wire: WireReply): void {
    setImmediate(() => {
      if (!this.#gone) {
        this.#res.cork(() => {
          this.#res.writeStatus(wire.statusLine);
          for (const [name, value] of wire.headers) this.#res.writeHeader(name, value);
          // An error body is one small chunk; end() copies it, and `true` asks uWS to close after it.
          this.#res.end(wire.chunks[0] ?? '', true);
        });
      }
      this.#onSettled(this);
    });
  }

  protected writeReply(wire: WireReply): void {
    if (saysConnectionClose(wire)) {
      this.#writeAndClose(wire);
      return;
    }
    this.#wire = wire;
    this.#res.cork(() => {
      this.#res.writeStatus(wire.statusLine);
      for (const [name, value] of wire.headers) this.#res.writeHeader(name, value);
      if (wire.totalBytes === 0) {
        this.#res.end();
        this.#finish();
        return;
      }
      // onWritable fires when the socket drains after a tryEnd that could not write everything.
      this.#res.onWritable(() => this.state !== 'writing' || this.#pump());
      this.#pump();
    });
  }

  /**
   * A reply that says `Connection: close` (every reply of a drain): uWS closes a connection after a
   * reply only through `end(body, true)`, which writes that header itself; a header written by hand,
   * or tryEnd, leaves the connection open (measured). end() takes the body in one piece and buffers
   * what the socket does not take at once, so a multi-chunk reply is joined first: one copy, paid
   * only by the few replies of a drain.
   */
  #writeAndClose(wire: WireReply): void {
    const body = wire.chunks.length === 1 ? wire.chunks[0] : Buffer.concat(wire.chunks);
    this.#res.cork(() => {
      this.#res.writeStatus(wire.statusLine);
      for (const [name, value] of wire.headers) {
        if (name.toLowerCase() !== 'connection') this.#res.writeHeader(name, value);
      }
      this.#res.end(body ?? '', true);
    });
    this.#finish();
  }

  /**
   * Writes chunks until the reply is done or the socket pushes back. tryEnd() writes what the socket
   * takes without buffering the rest (no copy of a large tensor), and counts body bytes in
   * getWriteOffset(), which tells how much of the current chunk a failed attempt got out.
   * Returns false while backpressure remains.
   */
  #pump(): boolean {
    const wire = this.#wire;
    if (wire === undefined) return true; // nothing left to write
    while (this.#index < wire.chunks.length) {
      const chunk = wire.chunks[this.#index];
      if (chunk === undefined) break;
      const written = this.#res.getWriteOffset() - this.#chunkStart;
      const [ok, done] = this.#res.tryEnd(
        written > 0 ? chunk.subarray(written) : chunk,
        wire.totalBytes,
      );
      if (done) {
        this.#finish();
        return true;
      }
      if (!ok) return false;
      this.#chunkStart += chunk.byteLength;
      this.#index += 1;
    }
    return true;
  }

  #finish(): void {
    this.#wire = undefined;
    this.delivered();
    this.#onSettled(this);
  }

  #onAborted(): void {
    this.#gone = true;
    if (!this.abandon()) return;
    this.#wire = undefined;
    this.#onSettled(this);
  }
}

function saysConnectionClose(wire: WireReply): boolean {
  return wire.headers.some(
    ([name, value]) => name.toLowerCase() === 'connection' && value.toLowerCase() === 'close',
  );
}
