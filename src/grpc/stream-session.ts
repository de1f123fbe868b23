// One ModelStreamInfer call's bookkeeping, whichever transport carries it (grpc-js's Duplex in
// model-stream.ts, or the bare HTTP/2 stream in stream-infer.ts): many requests in flight at once,
// each answered as it completes (its response carries its id), errors as `error_message` responses
// rather than a stream abort, and the stream's end cancelling what it still has queued.
//
// Flow control: a client that stops reading must not make the server hold its answers without
// bound. A transport reports an answer sent only once it left within the client's flow-control
// window, so the session counts the answers handed over and not yet sent, and stops reading
// requests (the transport stops reading HTTP/2 frames, and the client's own window fills) while
// their bytes reach `maxUnsentBytes`, while the transport's write buffer asks for a drain, or
// while it holds `maxInflight` requests running or unsent. Requests already running still finish
// and are written; see docs/grpc.md for the whole bound.
//
// Memory across streams: the session reserves its stream's receive window (what the client may
// send before the server reads) and its unsent answers from the process's client-memory budget
// (memory/client-budget.ts). A call that cannot reserve its window is refused; a stream whose next
// answer does not fit is reset (`exhaust`), which drops its unsent answers at once. Both reach the
// client as RESOURCE_EXHAUSTED, as a message over the size limit does.

import { setMaxListeners } from 'node:events';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import { fail, toServerError, type InferenceServerError } from '../errors.js';
import { BudgetAccount, closeLeavingGarbage, type MemoryBudget } from '../memory/client-budget.js';
import { assertValidModelName } from '../repository/model-name.js';
import {
  decodeInferRequest,
  encodeInferResponse,
  versionOf,
  type ModelInferRequest,
  type ModelInferResponse,
} from './infer-codec.js';

/** `ModelStreamInferResponse`: an error carries the request's id and model in `infer_response`. */
export interface ModelStreamInferResponse {
  readonly error_message: string;
  readonly infer_response: ModelInferResponse | Partial<ModelInferResponse>;
}

/**
 * Requests one stream holds before it stops reading: the WebSocket default (--ws-max-inflight),
 * enough for a client's whole pipeline and a bound on the stream's memory.
 */
export const STREAM_MAX_INFLIGHT = 1024;

/**
 * Answer bytes one stream may have waiting to be sent before it stops reading: enough to keep a
 * reader's pipe full (many HTTP/2 windows), small enough that a client which stops reading costs
 * little memory. Answers larger than this still go out, one at a time.
 */
export const STREAM_MAX_UNSENT_BYTES = 4 * 1024 * 1024;

export interface StreamOptions {
  /** Requests one stream holds (running, or answered and not yet sent) before it stops reading. */
  readonly maxInflight: number;
  /** Bytes of answers (tensor data, error texts) written and not yet sent before it stops reading. */
  readonly maxUnsentBytes: number;
  /** The process's client-memory budget (--client-memory-budget). */
  readonly budget: MemoryBudget;
  /** Request bytes the client may send before the server reads: the stream's receive window. */
  readonly windowBytes: number;
  readonly onServerError?: (err: InferenceServerError, rpc: string, tenant?: string) => void;
  /**
   * Aborted when the server stops taking calls: the stream is then treated as if the client had
   * ended it (requests still arriving are served), and it ends once nothing is in flight.
   */
  readonly draining?: AbortSignal;
  /**
   * The stream's W3C `traceparent` metadata, unparsed: every request on the stream is traced under
   * it (a malformed one is ignored by the tracer).
   */
  readonly traceparent?: string;
  /** --tenant-header: the stream's metadata value ('' without it); each request is admitted for it. */
  readonly tenant?: string;
}

/** What a session needs from the stream that carries it. */
export interface StreamTransport {
  /** Writes one answer; `sent` runs once it has left for the client (never, if the call ends). */
  send(message: ModelStreamInferResponse, sent: () => void): void;
  /** Stops delivering requests, and starts again. Called only on a change. */
  pause(): void;
  resume(): void;
  /** Whether the transport's own write buffer asks the writer to wait for a drain. */
  needsDrain(): boolean;
  /** Ends the call with status OK: everything read was answered. */
  finish(): void;
  /**
   * Ends the call with RESOURCE_EXHAUSTED and drops whatever it has not sent (an HTTP/2 stream
   * is reset, so its buffered answers are freed even if the client never reads again).
   */
  exhaust(details: string): void;
}

/** What a client over the budget is told (docs/operations.md, "Hostile clients"). */
export function budgetExhausted(budget: MemoryBudget, what: string): string {
  return (
    `the server's memory for clients is exhausted (--client-memory-budget ${budget.limitBytes} ` +
    `bytes, held by answers other clients have not read): ${what}; retry later`
  );
}

export class StreamSession {
  /**
   * One signal for every request of the stream: the protocol cancels a stream, never one of its
   * requests, so the requests in flight are cancelled together. An AbortController per request
   * cost more main-thread time than the stream's framing.
   */
  private readonly controller = new AbortController();
  /** Requests running: read, and not yet answered. */
  private running = 0;
  /** Requests read and not yet sent: running, or answered with the answer still unsent. */
  private held = 0;
  /** Bytes of the tensors of the requests running. */
  private runningBytes = 0;
  /** Bytes of the answers handed to the transport whose write has not completed. */
  private unsentBytes = 0;
  private paused = false;
  private ended = false;
  private closed = false;
  /** How the call ends once every answer is out: with OK, unless `endWith` said otherwise. */
  private end: () => void = () => this.transport.finish();
  /**
   * This stream's share of the client-memory budget: its requests running and its unsent answers,
   * and its receive window while it is paused (then the client may push a window's worth that the
   * server holds unread; a stream being read turns what arrives into requests at once). An idle
   * stream holds nothing, so the budget does not cap how many streams may stay open.
   */
  private readonly account: BudgetAccount;
  private readonly onDrainSignal = (): void => this.halfClose();

  constructor(
    private readonly plane: DataPlane,
    private readonly transport: StreamTransport,
    private readonly options: StreamOptions,
  ) {
    // Each request in flight listens on the one signal (the scheduler's cancellation): as many
    // listeners as requests, which is no leak.
    setMaxListeners(0, this.controller.signal);
    this.account = new BudgetAccount(options.budget);
    // A budget without room for one stream's window is full: no new streams until it frees.
    if (options.budget.tryReserve(options.windowBytes)) options.budget.release(options.windowBytes);
    else {
      this.closed = true;
      transport.exhaust(budgetExhausted(options.budget, 'no room for another stream'));
      return;
    }
    // A call that arrives while the server drains ends at once (after GOAWAY, none should).
    if (options.draining?.aborted === true) this.halfClose();
    else options.draining?.addEventListener('abort', this.onDrainSignal, { once: true });
  }

  /** One request read from the stream. */
  receive(msg: ModelInferRequest): void {
    if (this.closed) return;
    // A request running holds its tensors twice: in the message read off the stream and in the
    // batch block the scheduler copies them into; and they stand for its answer's bytes until the
    // answer is made. Reserved now: a stream over the budget is cut before it runs more work whose
    // answer it cannot hold.
    const bytes = RUNNING_COPIES * requestBytes(msg);
    if (!this.reserve(this.runningBytes + bytes, this.unsentBytes)) return;
    this.runningBytes += bytes;
    const arrivalNs = Number(process.hrtime.bigint());
    this.running += 1;
    this.held += 1;
    this.flow();
    void this.run(msg, this.controller.signal, arrivalNs).then((message) => {
      this.running -= 1;
      this.runningBytes -= bytes;
      this.send(message);
      this.flow();
      this.finishIfDone();
    });
  }

  /** The client ended its side (or the server is draining): end once every answer is out. */
  halfClose(): void {
    this.ended = true;
    this.finishIfDone();
  }

  /**
   * The transport read something it must refuse (an undecodable or oversized message): nothing
   * more is read, the requests already read are answered, and then `end` ends the call (with the
   * refusal's status) instead of OK.
   */
  endWith(end: () => void): void {
    if (this.closed) return;
    this.end = end;
    this.halfClose();
  }

  /**
   * The client cancelled, the connection went, or the transport failed the call: queued requests
   * leave their scheduler queues without running; running ones finish and their results are dropped.
   */
  cancel(): void {
    // What it held for its client is garbage now, the window included: a paused stream's client
    // has usually filled it, and node:http2 holds those bytes until the stream is collected.
    closeLeavingGarbage(this.account);
    if (this.closed) return;
    this.closed = true;
    this.options.draining?.removeEventListener('abort', this.onDrainSignal);
    if (this.running > 0) {
      this.controller.abort(fail('CANCELLED', 'the stream closed before the response was sent'));
    }
  }

  /** Pauses or resumes reading to match the bounds; the transport calls it on a drain. */
  flow(): void {
    if (this.closed) return;
    const full =
      this.held >= this.options.maxInflight ||
      this.unsentBytes >= this.options.maxUnsentBytes ||
      this.transport.needsDrain();
    if (full === this.paused) return;
    if (full) {
      const held = this.options.windowBytes + this.runningBytes + this.unsentBytes;
      if (!this.account.hold(held)) {
        this.exhaust();
        return;
      }
      this.paused = true;
      this.transport.pause();
    } else {
      this.paused = false;
      this.account.hold(this.holding(this.runningBytes, this.unsentBytes));
      this.transport.resume();
    }
  }

  /** What the stream holds with `running` and `unsent` bytes: see `account`. */
  private holding(running: number, unsent: number): number {
    return (this.paused ? this.options.windowBytes : 0) + running + unsent;
  }

  /**
   * Holds the window (while paused), `running` bytes of requests and `unsent` bytes of answers. When that does not
   * fit the budget the stream is ended with RESOURCE_EXHAUSTED (its unsent answers dropped), and
   * this returns false.
   */
  private reserve(running: number, unsent: number): boolean {
    if (this.account.hold(this.holding(running, unsent))) return true;
    this.exhaust();
    return false;
  }

  /** Ends the stream for the budget: RESOURCE_EXHAUSTED, its unsent answers dropped. */
  private exhaust(): void {
    this.cancel();
    this.transport.exhaust(budgetExhausted(this.options.budget, 'this stream was ended'));
  }

  private finishIfDone(): void {
    if (this.ended && this.running === 0 && !this.closed) {
      this.closed = true;
      this.options.draining?.removeEventListener('abort', this.onDrainSignal);
      this.account.close();
      this.end();
    }
  }

  private send(message: ModelStreamInferResponse): void {
    if (this.closed) return;
    const bytes = answerBytes(message);
    if (!this.reserve(this.runningBytes, this.unsentBytes + bytes)) return;
    this.unsentBytes += bytes;
    this.transport.send(message, () => {
      this.unsentBytes -= bytes;
      this.held -= 1;
      this.account.hold(this.holding(this.runningBytes, this.unsentBytes));
      this.flow();
    });
  }

  /**
   * A decoupled model's responses before its final one: each is one more message on the stream,
   * held (and counted against the flow limits) like an answer until the transport has sent it.
   */
  private partial(message: ModelStreamInferResponse): void {
    if (this.closed) return;
    this.held += 1;
    this.send(message);
    this.flow();
  }

  private async run(
    msg: ModelInferRequest,
    signal: AbortSignal,
    arrivalNs: number,
  ): Promise<ModelStreamInferResponse> {
    try {
      assertValidModelName(msg.model_name);
      const request = decodeInferRequest(msg);
      const response = await this.plane.infer(
        msg.model_name,
        versionOf(msg.model_version),
        request,
        {
          signal,
          arrivalNs,
          ...(this.options.traceparent !== undefined && { traceparent: this.options.traceparent }),
          ...(this.options.tenant !== undefined && { tenant: this.options.tenant }),
          // Decoupled models: each response as a message, marked `triton_final_response: false`,
          // as Triton marks them; the final flag (the resolved response) follows with `true`.
          responses: (r) => {
            if (r instanceof Error) {
              this.partial({ error_message: r.message, infer_response: requestFields(msg) });
              return;
            }
            this.partial({
              error_message: '',
              infer_response: encodeInferResponse({
                ...r,
                parameters: { ...r.parameters, triton_final_response: false },
              }),
            });
          },
        },
      );
      return { error_message: '', infer_response: encodeInferResponse(response) };
    } catch (e) {
      const err = toServerError(e);
      if (err.status >= 500 && err.status !== 503) {
        this.options.onServerError?.(err, 'ModelStreamInfer', this.options.tenant);
      }
      return { error_message: err.message, infer_response: requestFields(msg) };
    }
  }
}

/** An error answer's `infer_response`: the request's model and id, so the client can match it. */
function requestFields(msg: ModelInferRequest): Partial<ModelInferResponse> {
  return { model_name: msg.model_name, model_version: msg.model_version, id: msg.id };
}

/** What a request holds in memory: its tensors' bytes. */
/** Copies of a request's tensors alive while it runs (see `receive`). */
const RUNNING_COPIES = 2;

function requestBytes(msg: ModelInferRequest): number {
  let n = 0;
  for (const b of msg.raw_input_contents) n += b.byteLength;
  return n;
}

/** What an answer holds in memory beyond its fixed fields: output bytes and the error text. */
function answerBytes(message: ModelStreamInferResponse): number {
  let n = message.error_message.length;
  for (const b of message.infer_response.raw_output_contents ?? []) n += b.byteLength;
  return n;
}
