// One node:http request/response pair, the counterpart of uws-exchange.ts with the same states and
// rules: body read under the size limit into one buffer, the handler call, the reply written with
// backpressure honoured, and abort detected when the response closes before it finished.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { fail, toServerError } from '../../errors.js';
import { BodyAccumulator } from '../body-accumulator.js';
import { bodyFraming } from '../body-framing.js';
import type { HttpHandler, HttpReply } from '../front-end.js';
import { AdapterCall, type RequestHead } from '../http-call.js';
import { errorReply, handlerFailureReply } from '../error-reply.js';
import { releaseOnce, toWireReply, wireOrFailure } from '../reply-body.js';

type ExchangeState = 'reading' | 'handling' | 'writing' | 'done' | 'aborted';

const EMPTY_BODY = new Uint8Array(0);

export class NodeHttpExchange {
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #maxBodyBytes: number;
  readonly #controller = new AbortController();
  #state: ExchangeState = 'reading';
  #release: ((delivered: boolean) => void) | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number) {
    this.#req = req;
    this.#res = res;
    this.#maxBodyBytes = maxBodyBytes;
  }

  start(head: RequestHead, handler: HttpHandler): void {
    // 'close' before 'finish' means the connection went away (or close() destroyed it).
    this.#res.once('close', () => this.#onClose());
    // Node reports a connection lost mid-body as an 'error' on the request ("aborted"); the
    // response's 'close' above already covers it, so this listener only keeps it from being thrown.
    this.#req.on('error', () => undefined);

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

    this.#req.on('data', (chunk: Buffer) => {
      if (this.#state !== 'reading') return; // rejected: node discards the rest
      try {
        body.append(chunk);
      } catch (error) {
        this.#reject(error);
      }
    });
    this.#req.once('end', () => {
      if (this.#state !== 'reading') return;
      let complete: Uint8Array;
      try {
        complete = body.finish();
      } catch (error) {
        this.#reject(error);
        return;
      }
      this.#dispatch(head, complete, handler);
    });
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
      await this.#send(reply);
    } catch {
      // Only a node:http invariant broken mid-reply gets here; the reply cannot be finished, and
      // destroying the socket reports that to the client (and runs #onClose).
      this.#res.destroy();
    }
  }

  /** A framing or size error: 400 and close, so the unread rest of the body is never parsed. */
  #reject(error: unknown): void {
    this.#state = 'done';
    const wire = toWireReply(errorReply(toServerError(error)));
    const headers: OutgoingHttpHeaders = Object.fromEntries(wire.headers);
    headers['content-length'] = wire.totalBytes;
    // With "Connection: close" node ends the socket once this reply is out, after discarding
    // whatever body bytes are already buffered.
    headers.connection = 'close';
    this.#res.writeHead(wire.status, headers);
    this.#res.end(wire.chunks[0]);
  }

  async #send(reply: HttpReply): Promise<void> {
    const release = releaseOnce(reply);
    if (this.#state !== 'handling') {
      release(false); // aborted while the handler ran
      return;
    }
    this.#state = 'writing';
    this.#release = release;
    const res = this.#res;
    res.once('finish', () => {
      // 'finish': the last byte is handed to the socket, which no longer needs our chunks.
      this.#state = 'done';
      release(true);
    });
    const wire = wireOrFailure(reply);
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
      if (this.#state !== 'writing') return; // the client went away while we waited
    }
  }

  #onClose(): void {
    const previous = this.#state;
    if (previous === 'done' || previous === 'aborted') return;
    this.#state = 'aborted';
    this.#controller.abort(
      fail('CANCELLED', 'the client closed the connection before the reply was sent'),
    );
    if (previous === 'writing') this.#release?.(false);
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
