// One request/response pair as both adapters handle it, whatever the platform: its states, the body
// read under the size limit, the handler call, the reply's release hook, and abort. A platform
// subclass (uws/uws-exchange.ts, node/node-http-exchange.ts) feeds it the library's events and
// writes the bytes.

import { fail, toServerError, type InferenceServerError } from '../errors.js';
import { BodyAccumulator } from './body-accumulator.js';
import { bodyFraming, bodyKind, clientMemoryFull, type BodyFraming } from './body-framing.js';
import { refuseRepeatedHost } from './host-header.js';
import { errorReply, handlerFailureReply } from './error-reply.js';
import type { HttpHandler, HttpReply } from './front-end.js';
import { AdapterCall, type RequestHead } from './http-call.js';
import { ExchangeAbort } from './exchange-abort.js';
import { releaseOnce, toWireReply, wireOrFailure, type WireReply } from './reply-body.js';
import { reclaimAfterLarge } from '../memory/reclaim-after-large.js';
import { BudgetAccount, closeLeavingGarbage, type MemoryBudget } from '../memory/client-budget.js';

export type ExchangeState =
  | 'reading' // body bytes still arriving
  | 'handling' // the handler has the call
  | 'writing' // reply started; may be waiting for the socket to drain
  | 'done' // reply fully handed to the library (or a rejection written)
  | 'aborted'; // the client went away or the front end closed; nothing more is written

const EMPTY_BODY = new Uint8Array(0);

export abstract class HttpExchange {
  readonly #head: RequestHead;
  readonly #handler: HttpHandler;
  readonly #maxBodyBytes: number;
  /** Not an AbortController: see execution/abort-like.ts. */
  readonly #abort = new ExchangeAbort();
  #state: ExchangeState = 'reading';
  #body: BodyAccumulator | undefined;
  /** The body's size, kept for the reclaimer after the buffer itself is handed to the call. */
  #bodyBytes = 0;
  #release: ((delivered: boolean) => void) | undefined;
  /** The process's client-memory budget (--client-memory-budget); undefined: bodies uncounted. */
  readonly #budget: MemoryBudget | undefined;
  /**
   * The body buffer's share of the budget, from its allocation until the handler has decoded it
   * (HttpCall.releaseBody) or the exchange ends. A body that does not fit is refused with 503.
   */
  #account: BudgetAccount | undefined;

  /** `head` is plain data already copied out of the library's request object. */
  constructor(
    head: RequestHead,
    handler: HttpHandler,
    maxBodyBytes: number,
    budget?: MemoryBudget,
  ) {
    this.#head = head;
    this.#handler = handler;
    this.#maxBodyBytes = maxBodyBytes;
    this.#budget = budget;
  }

  protected get state(): ExchangeState {
    return this.#state;
  }

  /**
   * Writes `wire`, the handler's reply, and calls `delivered()` once the last byte is handed to the
   * library. May resolve before that (while waiting for backpressure it need not).
   */
  protected abstract writeReply(wire: WireReply): void | Promise<void>;

  /**
   * Writes `wire`, a framing or size error, and closes the connection once it is out: the unread
   * rest of the body would otherwise be parsed as the next request.
   */
  protected abstract writeRejection(wire: WireReply): void;

  /** Drops the connection: a library invariant broke mid-reply and the reply cannot be finished. */
  protected abstract breakConnection(): void;

  /**
   * A framing the adapter's library cannot read safely, refused like a malformed one (400, then the
   * connection closes); undefined to accept it. Every framing is accepted unless a subclass says.
   */
  protected framingRefusal(_framing: BodyFraming): InferenceServerError | undefined {
    return undefined;
  }

  /**
   * Reads the framing headers. A request without a body goes to the handler at once; a bad one is
   * rejected. Returns true when body bytes follow: the subclass then feeds them to `bodyChunk` and
   * `bodyEnd`.
   */
  protected begin(): boolean {
    const headers = this.#head.headers;
    try {
      const header = (name: string): string | undefined => headers.get(name);
      refuseRepeatedHost(header);
      const framing = bodyFraming(header, this.#maxBodyBytes);
      const refused = this.framingRefusal(framing);
      if (refused !== undefined) throw refused;
      if (framing.kind === 'none') {
        this.#dispatch(EMPTY_BODY);
        return false;
      }
      this.#body = new BodyAccumulator(
        framing,
        this.#maxBodyBytes,
        tensorBytesAt(headers),
        bodyKind(header),
        this.#budget === undefined ? undefined : this.#reserver(this.#budget),
      );
      return true;
    } catch (error) {
      this.#reject(error);
      return false;
    }
  }

  /**
   * One chunk of the body, copied before this returns (so it may be memory the library reuses).
   * Returns false once the exchange no longer reads: after a rejection the library may still
   * deliver the rest of what the client sent, and it is discarded.
   */
  protected bodyChunk(chunk: Uint8Array): boolean {
    const body = this.#body;
    if (this.#state !== 'reading' || body === undefined) return false;
    try {
      body.append(chunk);
      return true;
    } catch (error) {
      this.#reject(error);
      return false;
    }
  }

  /**
   * The body's framing broke while it was being read (a decoder error): the request is refused
   * like one over the limit. Ignored once the exchange no longer reads.
   */
  protected bodyFailed(error: unknown): void {
    if (this.#state === 'reading') this.#reject(error);
  }

  /** The body is complete: checked against its framing, then handed to the handler. */
  protected bodyEnd(): void {
    const body = this.#body;
    if (this.#state !== 'reading' || body === undefined) return;
    let complete: Uint8Array;
    try {
      complete = body.finish();
    } catch (error) {
      this.#reject(error);
      return;
    }
    // From here the call holds the body's only reference, which the handler releases once it has
    // decoded it (HttpCall.releaseBody): a large body need not outlive its decoding.
    this.#bodyBytes = body.length;
    this.#body = undefined;
    this.#dispatch(complete);
  }

  /** The last byte of the reply is handed to the library, which no longer needs its chunks. */
  protected delivered(): void {
    this.#state = 'done';
    this.#release?.(true);
    // A body the handler never released (a route that does not decode one) was served: what it
    // held goes back as any served body's does, noted to the reclaimer below.
    this.#account?.close();
    this.#bodyIsGarbage();
  }

  /**
   * The client went away, or the front end is closing the connection. Aborts the handler's signal
   * and releases a reply being written. Returns false when the exchange had already ended.
   */
  protected abandon(): boolean {
    const previous = this.#state;
    if (previous === 'done' || previous === 'aborted') return false;
    this.#state = 'aborted';
    this.#abort.abort(
      fail('CANCELLED', 'the client closed the connection before the reply was sent'),
    );
    if (previous === 'writing') this.#release?.(false);
    this.#bodyIsGarbage();
    return true;
  }

  /**
   * The exchange is over: a large body (and what the request built from it) is garbage now, and
   * the reclaimer collects it once things are quiet. Small bodies stop at its threshold check.
   * A body still counted in the budget (refused, or its client went) stays counted until that
   * garbage is collected (closeLeavingGarbage, which notes it to the reclaimer itself).
   */
  #bodyIsGarbage(): void {
    const bytes = this.#body?.length ?? this.#bodyBytes;
    this.#body = undefined;
    this.#bodyBytes = 0;
    const account = this.#account;
    this.#account = undefined;
    if (account !== undefined && !account.closed) closeLeavingGarbage(account);
    else reclaimAfterLarge.note(bytes);
  }

  /** What the body accumulator calls before each allocation: over the budget, the body is refused. */
  #reserver(budget: MemoryBudget): (totalBytes: number) => void {
    const account = new BudgetAccount(budget);
    this.#account = account;
    return (totalBytes) => {
      if (!account.hold(totalBytes)) throw clientMemoryFull(budget.limitBytes, totalBytes);
    };
  }

  #dispatch(body: Uint8Array): void {
    this.#state = 'handling';
    const account = this.#account;
    // Decoded, the body is the request's (or garbage): no longer held for the client.
    const released = account === undefined ? undefined : () => void account.close();
    void this.#handle(new AdapterCall(this.#head, body, this.#abort, released));
  }

  async #handle(call: AdapterCall): Promise<void> {
    const handler = this.#handler;
    let reply: HttpReply;
    try {
      reply = await handler(call);
    } catch (error) {
      reply = handlerFailureReply(error);
    }
    try {
      await this.#send(reply);
    } catch {
      // Only a broken library invariant gets here; the reply cannot be finished, and dropping the
      // connection tells the client so (and runs the abort path, which releases the reply).
      this.breakConnection();
    }
  }

  #reject(error: unknown): void {
    this.#state = 'done';
    this.writeRejection(toWireReply(errorReply(toServerError(error))));
    this.#bodyIsGarbage();
  }

  #send(reply: HttpReply): void | Promise<void> {
    const release = releaseOnce(reply);
    if (this.#state !== 'handling') {
      // Aborted while the handler ran: the reply has nowhere to go.
      release(false);
      return;
    }
    this.#state = 'writing';
    this.#release = release;
    return this.writeReply(wireOrFailure(reply));
  }
}

/**
 * Where a binary request's tensor bytes start in its body (its Inference-Header-Content-Length),
 * so the body buffer can align them; 0 when absent or not a plain number (the decoder reports it).
 */
function tensorBytesAt(headers: RequestHead['headers']): number {
  const value = headers.get('inference-header-content-length');
  if (value === undefined) return 0;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
