// One uWebSockets.js request/response pair, from the route callback to the last byte written: body
// reading under the size limit, the handler call, the reply written under backpressure, and abort.
//
// uWS rules this file is built around (measured on @trufflesuite/uws-js-unofficial 20.30):
// - `res` must not be touched once `onAborted` has fired or the response has completed; the native
//   object is gone and any call can crash the process. `#state` guards every use.
// - `onData` chunks are views of memory uWS reuses and neuters when the callback returns: copied.
// - Writes made outside uWS's own callbacks (after an await) go through `res.cork`, which batches the
//   status line, headers and first body bytes into one syscall.

import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { fail, toServerError } from '../../errors.js';
import { BodyAccumulator } from '../body-accumulator.js';
import { bodyFraming } from '../body-framing.js';
import type { HttpHandler, HttpReply } from '../front-end.js';
import { AdapterCall, type RequestHead } from '../http-call.js';
import { errorReply, handlerFailureReply } from '../error-reply.js';
import { releaseOnce, toWireReply, wireOrFailure, type WireReply } from '../reply-body.js';

type ExchangeState =
  | 'reading' // body bytes still arriving
  | 'handling' // the handler has the call
  | 'writing' // reply started; may be waiting for onWritable
  | 'done' // reply fully handed to uWS; `res` is invalid
  | 'aborted'; // the client went away or close() ran; `res` is invalid

const EMPTY_BODY = new Uint8Array(0);

export class UwsExchange {
  readonly #res: HttpResponse;
  readonly #maxBodyBytes: number;
  readonly #onSettled: (exchange: UwsExchange) => void;
  readonly #controller = new AbortController();
  #state: ExchangeState = 'reading';
  // The reply being written: chunk `#index` starts at body offset `#chunkStart`.
  #wire: WireReply | undefined;
  #index = 0;
  #chunkStart = 0;
  #release: ((delivered: boolean) => void) | undefined;

  constructor(res: HttpResponse, maxBodyBytes: number, onSettled: (exchange: UwsExchange) => void) {
    this.#res = res;
    this.#maxBodyBytes = maxBodyBytes;
    this.#onSettled = onSettled;
  }

  /** Called synchronously from the route callback, with the head already copied out of `req`. */
  start(head: RequestHead, handler: HttpHandler): void {
    // First, before anything can await: uWS requires an abort handler on every response not
    // answered inside the route callback.
    this.#res.onAborted(() => this.#onAborted());

    let body: BodyAccumulator;
    try {
      const framing = bodyFraming((name) => head.headers.get(name), this.#maxBodyBytes);
      if (framing.kind === 'none') {
        this.#dispatch(head, EMPTY_BODY, handler);
        return;
      }
      body = new BodyAccumulator(framing, this.#maxBodyBytes);
    } catch (error) {
      this.#reject(error);
      return;
    }

    this.#res.onData((chunk, isLast) => {
      // After a rejection uWS may still deliver the rest of what the client sent.
      if (this.#state !== 'reading') return;
      let complete: Uint8Array | undefined;
      try {
        body.append(new Uint8Array(chunk));
        if (isLast) complete = body.finish();
      } catch (error) {
        this.#reject(error);
        return;
      }
      if (complete !== undefined) this.#dispatch(head, complete, handler);
    });
  }

  /** Force-closes the connection (used by close() on builds without `app.close()`). */
  forceClose(): void {
    if (this.#state === 'done' || this.#state === 'aborted') return;
    this.#res.close(); // runs onAborted synchronously
  }

  #dispatch(head: RequestHead, body: Uint8Array, handler: HttpHandler): void {
    this.#state = 'handling';
    void this.#handle(new AdapterCall(head, body, this.#controller.signal), handler);
  }

  async #handle(call: AdapterCall, handler: HttpHandler): Promise<void> {
    let reply: HttpReply;
    try {
      reply = await handler(call);
    } catch (error) {
      reply = handlerFailureReply(error);
    }
    try {
      this.#send(reply);
    } catch {
      // Only a broken uWS invariant gets here; the reply cannot be finished, and closing the
      // connection tells the client so (and runs #onAborted, which releases the reply).
      this.forceClose();
    }
  }

  /**
   * A framing or size error: answer 400 and close the connection, since the unread rest of the body
   * would otherwise be parsed as the next request.
   */
  #reject(error: unknown): void {
    this.#state = 'done';
    const wire = toWireReply(errorReply(toServerError(error)));
    this.#res.cork(() => {
      this.#res.writeStatus(wire.statusLine);
      for (const [name, value] of wire.headers) this.#res.writeHeader(name, value);
      // An error body is one small chunk; end() copies it, and `true` asks uWS to close after it.
      this.#res.end(wire.chunks[0] ?? '', true);
    });
    this.#onSettled(this);
  }

  #send(reply: HttpReply): void {
    const release = releaseOnce(reply);
    if (this.#state !== 'handling') {
      // Aborted while the handler ran: the reply has nowhere to go.
      release(false);
      return;
    }
    this.#state = 'writing';
    this.#release = release;
    const wire = wireOrFailure(reply);
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
      this.#res.onWritable(() => this.#state !== 'writing' || this.#pump());
      this.#pump();
    });
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
    this.#state = 'done';
    this.#wire = undefined;
    this.#release?.(true);
    this.#onSettled(this);
  }

  #onAborted(): void {
    const previous = this.#state;
    if (previous === 'done' || previous === 'aborted') return;
    this.#state = 'aborted';
    this.#wire = undefined;
    this.#controller.abort(
      fail('CANCELLED', 'the client closed the connection before the reply was sent'),
    );
    if (previous === 'writing') this.#release?.(false);
    this.#onSettled(this);
  }
}
