// One WebSocket's protocol state: the requests it has in flight (inference and repository calls,
// matched by their client-chosen ids), the cap on them, the queue of encoded responses waiting for
// the client to read, and the rules for closing. Transport-agnostic: it sees a
// `WebSocketConnection`, never uWS or ws.
//
// Ownership of a request slot: it is taken when a request frame is accepted and released only when
// the response (or error) frame is handed to the socket, not when inference finishes. A client that
// stops reading therefore runs into its in-flight cap instead of making the server hold an
// unbounded number of finished responses; the byte cap on queued frames covers the error frames.
//
// Memory across sockets: the bytes a socket holds unsent (its queue and the socket's own buffer)
// and the request frames still running are reserved from the process's client-memory budget (memory/client-budget.ts). A socket whose
// next frame does not fit is closed with 1013 (Try Again Later): the budget is full of answers
// other clients have not read, which is the server's condition, not this client's fault.

import type { DataPlanePort, InferContext } from '../dataplane/data-plane-api.js';
import { fail, toServerError, type InferenceServerError } from '../errors.js';
import { BudgetAccount, closeLeavingGarbage, type MemoryBudget } from '../memory/client-budget.js';
import type { WebSocketConnection, WebSocketPeer } from '../http/front-end.js';
import type { ApiAccess } from '../http/restricted-apis.js';
import type { DecodedRequest, InferenceResponse } from '../protocol/inference-request.js';
import { FRAME_CATEGORY } from './frame-category.js';
import { showId, type FrameId } from './frame-id.js';
import type {
  FrameCodec,
  InferFrame,
  RepositoryFrame,
  SharedMemoryAnswerFrame,
  SharedMemoryFrame,
} from './ws-frames.js';
import type { RegionStatus } from '../shared-memory/shm-region.js';
import { CLOSE_CODES, SHUTDOWN_CLOSE_REASON, type WebSocketLimits } from './ws-protocol.js';
import type { WsCounters } from './ws-counters.js';
import { runRepositoryFrame, type RepositoryPort } from './ws-repository.js';

/** The one data-plane call a session makes (the real `DataPlane` satisfies it). */
export interface InferPort {
  infer(
    name: string,
    version: string | undefined,
    request: DecodedRequest,
    ctx: InferContext,
  ): Promise<InferenceResponse>;
}

/** Every data-plane call a session makes. */
export type SessionPlane = InferPort & RepositoryPort & Pick<DataPlanePort, 'sharedMemory'>;

export interface SessionDeps {
  readonly plane: SessionPlane;
  readonly codec: FrameCodec;
  readonly limits: WebSocketLimits;
  readonly counters: WsCounters;
  /** The process's client-memory budget (--client-memory-budget). */
  readonly budget: MemoryBudget;
  /** What the upgrade's headers may reach (--http-restricted-api), decided at the upgrade. */
  readonly access: ApiAccess;
  /** Called with 5xx errors other than 503, for the log. */
  readonly onServerError?: (err: InferenceServerError, tenant?: string) => void;
  /** --tenant-header: the upgrade request's value ('' without it); each request is admitted for it. */
  readonly tenant?: string;
  /**
   * Called once, when the adapter reports the socket gone (`closed()`); the session's own close
   * only sends the close frame, which the client has yet to answer.
   */
  readonly onGone?: () => void;
}

interface Slot {
  /** The request's id, in the form it arrived in: its answer echoes it, whoever triggers it. */
  readonly id: FrameId;
  /** running: inference under way; sending: its frame is queued for the socket. */
  state: 'running' | 'sending';
  readonly controller: AbortController;
  /** False for a repository request: a cancel frame leaves it to run to its answer. */
  readonly cancellable: boolean;
  /** The request frame's bytes, held for the client until its answer is made (then 0). */
  requestBytes: number;
}

interface Outgoing {
  readonly bytes: Uint8Array;
  /** The request slot this frame releases once sent (undefined for refusals). */
  readonly slot: Slot | undefined;
}

export class WsSession implements WebSocketPeer {
  readonly #connection: WebSocketConnection;
  readonly #deps: SessionDeps;
  /** Requests in flight by id value (`FrameId.key`): the uint 64 5 and the float 5.0 are one id. */
  readonly #slots = new Map<FrameId['key'], Slot>();
  // A FIFO as an array with a head index: shift() is O(n) per call on a long queue.
  #queue: Outgoing[] = [];
  #head = 0;
  #queuedBytes = 0;
  /** Bytes of the request frames running (see Slot.requestBytes). */
  #requestBytes = 0;
  /** This socket's share of the client-memory budget: its queue and its socket's buffer. */
  readonly #account: BudgetAccount;
  #closed = false;
  #gone = false;
  /** Set by shutdown(): new requests are refused, and the socket closes once it has none. */
  #shuttingDown = false;

  constructor(connection: WebSocketConnection, deps: SessionDeps) {
    this.#connection = connection;
    this.#deps = deps;
    this.#account = new BudgetAccount(deps.budget);
    deps.counters.socketOpened();
  }

  /** Requests in flight on this socket (running, or answered but not yet sent). */
  get inflight(): number {
    return this.#slots.size;
  }

  /**
   * The server is shutting down: requests already in flight are answered, new request frames get
   * a SHUTTING_DOWN error frame (cancel frames still work), and once nothing is left to send the
   * socket is closed with 1001 "server shutting down".
   */
  shutdown(): void {
    this.#shuttingDown = true;
    this.#closeIfDone();
  }

  message(bytes: Uint8Array, binary: boolean, volatile: boolean): void {
    if (this.#closed) return;
    if (!binary) {
      this.#close(
        CLOSE_CODES.UNSUPPORTED_DATA,
        'text frames are not supported: send binary frames',
      );
      return;
    }
    const decoded = this.#deps.codec.decode(bytes, volatile);
    if (!decoded.ok) {
      if (decoded.close) {
        this.#close(CLOSE_CODES.INVALID_PAYLOAD, decoded.error.message);
      } else if (decoded.id !== null && this.#slots.has(decoded.id.key)) {
        // Refused under an id in flight: said as DUPLICATE_ID, so the client does not take it for
        // the end of the request it has in flight under that id.
        this.#refuse(decoded.id, duplicateId(decoded.id, decoded.error.message));
      } else {
        this.#refuse(decoded.id, decoded.error);
      }
      return;
    }
    const frame = decoded.frame;
    const refused = this.#deps.access(FRAME_CATEGORY[frame.kind]);
    if (refused !== undefined) {
      // Its id names no request in flight: infer and cancel share a category, so a socket refused
      // it has none. A frame kind of another category must keep DUPLICATE_ID's rule (see #accept).
      this.#refuse(frame.id, refused);
      return;
    }
    if (this.#shuttingDown && frame.kind !== 'cancel') {
      this.#refuse(
        frame.id,
        fail(
          'SHUTTING_DOWN',
          'the server is shutting down: this socket closes once its requests in flight are answered',
        ),
      );
      return;
    }
    switch (frame.kind) {
      case 'cancel':
        this.#cancel(frame.id);
        return;
      case 'infer':
        this.#accept(frame, bytes.byteLength);
        return;
      case 'repository_index':
      case 'model_load':
      case 'model_unload':
        this.#acceptRepository(frame, bytes.byteLength);
        return;
      case 'shm_register':
      case 'shm_unregister':
      case 'shm_status':
        this.#acceptSharedMemory(frame, bytes.byteLength);
        return;
    }
  }

  drain(): void {
    const connection = this.#connection;
    const limit = this.#deps.limits.highWaterBytes;
    while (this.#head < this.#queue.length && connection.bufferedAmount() < limit) {
      const next = this.#queue[this.#head] as Outgoing;
      this.#queue[this.#head] = undefined as unknown as Outgoing; // let the bytes be collected
      this.#head += 1;
      this.#queuedBytes -= next.bytes.byteLength;
      this.#write(next);
    }
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    }
    if (!this.#reserve()) return;
    this.#closeIfDone();
  }

  closed(): void {
    this.#end();
    if (this.#gone) return;
    this.#gone = true;
    this.#deps.onGone?.();
  }

  /** The session is done (its socket closed or closing): nothing more is sent or run. */
  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Queued requests leave their scheduler queue without running; running ones finish and their
    // results are dropped (terminating a run inside ONNX Runtime is not safe).
    const reason = fail('CANCELLED', 'the WebSocket closed before the response was sent');
    for (const slot of this.#slots.values()) slot.controller.abort(reason);
    this.#slots.clear();
    this.#queue = [];
    this.#head = 0;
    this.#queuedBytes = 0;
    this.#requestBytes = 0;
    closeLeavingGarbage(this.#account);
    this.#deps.counters.socketClosed();
  }

  #accept(frame: InferFrame, frameBytes: number): void {
    const slot = this.#take(frame.id, true, frameBytes);
    if (slot !== undefined) void this.#run(frame, slot, Number(process.hrtime.bigint()));
  }

  /** Repository requests are not cancellable: a load or unload cannot be stopped halfway. */
  #acceptRepository(frame: RepositoryFrame, frameBytes: number): void {
    const slot = this.#take(frame.id, false, frameBytes);
    if (slot === undefined) return;
    const { plane, codec } = this.#deps;
    void this.#answer(slot, async () =>
      codec.encodeRepositoryAnswer(frame.id, await runRepositoryFrame(plane, frame)),
    );
  }

  /** Shared-memory calls, like repository calls, run to their answer: not cancellable. */
  #acceptSharedMemory(frame: SharedMemoryFrame, frameBytes: number): void {
    const slot = this.#take(frame.id, false, frameBytes);
    if (slot === undefined) return;
    const { plane, codec } = this.#deps;
    void this.#answer(slot, async () => {
      const rows = await plane.sharedMemory(frame.call);
      const answer: SharedMemoryAnswerFrame =
        frame.kind === 'shm_status'
          ? // A system status call answers RegionStatus rows (CUDA calls have no frames).
            { kind: 'shm_status', regions: rows as readonly RegionStatus[] }
          : { kind: frame.kind };
      if (codec.encodeSharedMemoryAnswer === undefined) {
        // The codec's decoder never makes these frames; say so rather than answer nothing.
        throw fail('UNSUPPORTED', `shared-memory frames are not part of ${codec.protocol}`);
      }
      return codec.encodeSharedMemoryAnswer(frame.id, answer);
    });
  }

  /** The slot for a new request, or undefined when the frame was refused (duplicate id, cap). */
  #take(id: FrameId, cancellable: boolean, frameBytes: number): Slot | undefined {
    const { limits } = this.#deps;
    if (this.#slots.has(id.key)) {
      this.#refuse(id, duplicateId(id, undefined));
      return undefined;
    }
    if (this.#slots.size >= limits.maxInflight) {
      this.#refuse(
        id,
        fail(
          'QUEUE_FULL',
          `this socket already has ${this.#slots.size} requests in flight, the limit ` +
            `(--ws-max-inflight ${limits.maxInflight}); wait for responses before sending more`,
        ),
      );
      return undefined;
    }
    const slot: Slot = {
      id,
      state: 'running',
      controller: new AbortController(),
      cancellable,
      requestBytes: frameBytes,
    };
    // Its bytes (views of the frame, or copies) are held until it is answered: a client sending
    // faster than the model runs fills the budget with queued requests, not only with answers.
    this.#requestBytes += frameBytes;
    if (!this.#reserve()) return undefined;
    this.#slots.set(id.key, slot);
    return slot;
  }

  #run(frame: InferFrame, slot: Slot, arrivalNs: number): Promise<void> {
    const { plane, codec } = this.#deps;
    return this.#answer(slot, async () => {
      const response = await plane.infer(frame.model, frame.version, frame.request, {
        signal: slot.controller.signal,
        arrivalNs,
        ...(frame.traceparent !== undefined && { traceparent: frame.traceparent }),
        ...(this.#deps.tenant !== undefined && { tenant: this.#deps.tenant }),
        // A decoupled model's responses before its final flag: frames under the request's id that
        // keep its slot (only the final response frame, below, releases it).
        ...(codec.streams && {
          responses: (r: InferenceResponse | InferenceServerError) => {
            if (this.#slots.get(slot.id.key) !== slot || slot.state !== 'running') return;
            this.#send(
              r instanceof Error
                ? codec.encodeError(frame.id, r.toWire(), false)
                : codec.encodeResponse(frame.id, r),
              undefined,
            );
          },
        }),
      });
      return codec.encodeResponse(frame.id, response);
    });
  }

  /** Sends the frame `produce` encodes, or the error frame of its failure, under the slot's id. */
  async #answer(slot: Slot, produce: () => Promise<Uint8Array>): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = await produce();
    } catch (e) {
      const err = toServerError(e);
      if (err.status >= 500 && err.status !== 503)
        this.#deps.onServerError?.(err, this.#deps.tenant);
      bytes = this.#deps.codec.encodeError(slot.id, err.toWire());
    }
    this.#answered(slot);
    // Cancelled (already answered) or the socket closed: the result has nowhere to go.
    if (this.#slots.get(slot.id.key) !== slot) return;
    slot.state = 'sending';
    this.#send(bytes, slot);
  }

  #cancel(id: FrameId): void {
    const slot = this.#slots.get(id.key);
    // Unknown, already answered and waiting to be sent, or a repository request (which runs to
    // its answer): nothing to cancel, nothing to say.
    if (slot === undefined || slot.state !== 'running' || !slot.cancellable) return;
    const err = fail('CANCELLED', `request ${showId(id)} was cancelled by the client`);
    slot.controller.abort(err);
    this.#answered(slot);
    slot.state = 'sending';
    this.#send(this.#deps.codec.encodeError(slot.id, err.toWire()), slot);
  }

  /** The slot's request no longer holds its bytes (its answer, when it has one, is counted instead). */
  #answered(slot: Slot): void {
    if (!this.#closed) this.#requestBytes -= slot.requestBytes; // #end zeroed the sum
    slot.requestBytes = 0;
  }

  /** An error frame that releases no slot: the frame it answers never became a request. */
  #refuse(id: FrameId | null, err: InferenceServerError): void {
    this.#send(this.#deps.codec.encodeError(id, err.toWire()), undefined);
  }

  #send(bytes: Uint8Array, slot: Slot | undefined): void {
    if (this.#closed) return;
    const item: Outgoing = { bytes, slot };
    const { limits, counters } = this.#deps;
    if (
      this.#head === this.#queue.length &&
      this.#connection.bufferedAmount() < limits.highWaterBytes
    ) {
      this.#write(item);
      return;
    }
    this.#queue.push(item);
    this.#queuedBytes += bytes.byteLength;
    const pending = this.#queuedBytes + this.#connection.bufferedAmount();
    counters.observePending(pending);
    if (pending > limits.maxQueuedBytes) {
      this.#close(
        CLOSE_CODES.POLICY_VIOLATION,
        `slow consumer: ${pending} response bytes unread, over the ${limits.maxQueuedBytes} limit`,
      );
      return;
    }
    this.#reserve();
  }

  /**
   * Reserves what the socket holds unsent now (a decrease always fits). Over the budget the socket
   * is closed with 1013, which drops its queue; returns false then.
   */
  #reserve(): boolean {
    if (this.#closed) return false;
    const held = this.#requestBytes + this.#queuedBytes + this.#connection.bufferedAmount();
    if (this.#account.hold(held)) return true;
    const { budget } = this.#deps;
    this.#close(
      CLOSE_CODES.TRY_AGAIN_LATER,
      `server memory for unread responses is full (--client-memory-budget ${budget.limitBytes})`,
    );
    return false;
  }

  #write(item: Outgoing): void {
    if (item.slot !== undefined && this.#slots.get(item.slot.id.key) === item.slot) {
      this.#slots.delete(item.slot.id.key);
    }
    if (!this.#connection.send(item.bytes)) {
      this.#close(CLOSE_CODES.POLICY_VIOLATION, 'the socket refused a response frame');
      return;
    }
    this.#deps.counters.observePending(this.#queuedBytes + this.#connection.bufferedAmount());
    if (!this.#reserve()) return;
    if (this.#head === this.#queue.length) this.#closeIfDone();
  }

  /**
   * Shutting down and every request answered, every frame handed to the socket: the close frame
   * goes out behind them (the library sends in order).
   */
  #closeIfDone(): void {
    if (!this.#shuttingDown || this.#slots.size > 0 || this.#head < this.#queue.length) return;
    this.#close(CLOSE_CODES.GOING_AWAY, SHUTDOWN_CLOSE_REASON);
  }

  #close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#connection.close(code, closeReason(reason));
    // Some libraries report the close later (after the handshake); the session is done now.
    this.#end();
  }
}

/**
 * The refusal of a frame whose id a request in flight already holds. That request is untouched
 * and still gets its own response; the message says so, since both carry the same id.
 */
function duplicateId(id: FrameId, alsoInvalid: string | undefined): InferenceServerError {
  return fail(
    'DUPLICATE_ID',
    `request id ${showId(id)} is already in flight on this socket: this frame was not ` +
      'run, and the request in flight with that id continues unaffected' +
      (alsoInvalid === undefined ? '' : ` (the frame was also unusable: ${alsoInvalid})`),
  );
}

/** A close reason fits in 123 bytes of UTF-8; kept to ASCII so cutting it cannot split a character. */
function closeReason(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 123);
}
