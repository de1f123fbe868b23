// The main thread's side of one front-end thread: answers the thread's data-plane calls with the
// real data plane, runs its inference requests as if they had arrived here (same validation,
// queues, batches and statistics), and withdraws them when their client goes away or the thread
// dies. Everything that decides anything stays on the main thread; this only moves messages.

import type { DataPlane, InferContext } from '../dataplane/data-plane-api.js';
import { fail, fromWire, toServerError, type InferenceServerError } from '../errors.js';
import { ExchangeAbort } from '../http/exchange-abort.js';
import type { InferenceResponse } from '../protocol/inference-request.js';
import type { PlaneCall, ToMain, ToThread } from './thread-messages.js';
import { packResponse, unpackRequest } from './wire-tensors.js';
import type { LogSettingsPort } from '../logging/log-settings.js';

/** Posts to the thread; `transfer` gives the listed buffers up. */
export type PostToThread = (message: ToThread, transfer?: ArrayBuffer[]) => void;

export class PlaneHost {
  readonly #plane: DataPlane;
  readonly #post: PostToThread;
  /** The cancellation of each inference request in flight, by the thread's id. */
  readonly #open = new Map<number, ExchangeAbort>();

  readonly #onInfer: (() => void) | undefined;
  readonly #logging: LogSettingsPort | undefined;

  /**
   * `onInfer` is called for each inference request the thread hands over (for its counter);
   * `logging` answers the thread's logging-extension calls (absent: they fail NOT_FOUND).
   */
  constructor(
    plane: DataPlane,
    post: PostToThread,
    onInfer?: () => void,
    logging?: LogSettingsPort,
  ) {
    this.#plane = plane;
    this.#post = post;
    this.#onInfer = onInfer;
    this.#logging = logging;
  }

  /** Requests from this thread still in flight. */
  get inFlight(): number {
    return this.#open.size;
  }

  /** Handles one `call`, `infer` or `cancel` message; other kinds are the supervisor's. */
  receive(message: ToMain): void {
    switch (message.kind) {
      case 'call':
        this.#answer(message.id, message.method, message.args);
        return;
      case 'infer':
        this.#infer(message);
        return;
      case 'cancel':
        this.#open
          .get(message.id)
          ?.abort(
            message.reason !== undefined
              ? fromWire(message.reason)
              : fail('CANCELLED', 'the client closed the connection before the reply was sent'),
          );
        return;
      default:
        return;
    }
  }

  /**
   * The thread is gone (it died, or was stopped): its clients are gone with it, so every request
   * it had in flight is withdrawn as a disconnect would withdraw it. Answers go nowhere after this.
   */
  abandon(): void {
    const reason = fail('CANCELLED', 'the front-end thread holding the connection stopped');
    const open = [...this.#open.values()];
    this.#open.clear();
    for (const abort of open) abort.abort(reason);
  }

  #answer(id: number, method: PlaneCall, args: unknown[]): void {
    Promise.resolve()
      .then(() => this.#dispatch(method, args))
      .then(
        (value) => this.#post({ kind: 'reply', id, ok: true, value }),
        (e: unknown) => this.#post({ kind: 'reply', id, ok: false, error: wire(e) }),
      );
  }

  // One case per forwarded call: the thread names a method, never reaches anything else.
  #dispatch(method: PlaneCall, args: unknown[]): unknown {
    const p = this.#plane;
    const [a, b] = args as [never, never];
    switch (method) {
      case 'ready':
        return p.ready();
      case 'serverMetadata':
        return p.serverMetadata();
      case 'modelReady':
        return p.modelReady(a, b);
      case 'modelMetadata':
        return p.modelMetadata(a, b);
      case 'modelConfig':
        return p.modelConfig(a, b);
      case 'modelStats':
        return p.modelStats(a, b);
      case 'repositoryIndex':
        return p.repositoryIndex(a);
      case 'loadModel':
        return p.loadModel(a, b);
      case 'unloadModel':
        return p.unloadModel(a, b);
      case 'sharedMemory':
        return p.sharedMemory(a);
      case 'traceSetting':
        return p.traceSetting(a, b);
      case 'logSettings':
        if (this.#logging === undefined) throw fail('NOT_FOUND', 'Not Found');
        return this.#logging.logSettings(a);
    }
  }

  #infer(message: Extract<ToMain, { kind: 'infer' }>): void {
    const { id } = message;
    this.#onInfer?.();
    const abort = new ExchangeAbort();
    this.#open.set(id, abort);
    const ctx: InferContext = {
      signal: abort,
      arrivalNs: message.arrivalNs,
      ...(message.traceparent !== undefined && { traceparent: message.traceparent }),
      ...(message.tenant !== undefined && { tenant: message.tenant }),
      ...(message.streams && {
        responses: (r: InferenceResponse | InferenceServerError) => {
          if (!this.#open.has(id)) return;
          if (r instanceof Error) {
            this.#post({ kind: 'partial', id, response: { error: r.toWire() } });
            return;
          }
          const packed = packResponse(r);
          this.#post({ kind: 'partial', id, response: packed.value }, packed.transfer);
        },
      }),
    };
    let answer: Promise<InferenceResponse>;
    try {
      answer = this.#plane.infer(
        message.model,
        message.version,
        unpackRequest(message.request),
        ctx,
      );
    } catch (e) {
      answer = Promise.reject(e);
    }
    answer.then(
      (response) => {
        if (!this.#open.delete(id)) return;
        const packed = packResponse(response);
        this.#post({ kind: 'reply', id, ok: true, value: packed.value }, packed.transfer);
      },
      (e: unknown) => {
        if (!this.#open.delete(id)) return;
        this.#post({ kind: 'reply', id, ok: false, error: wire(e) });
      },
    );
  }
}

function wire(e: unknown): ReturnType<InferenceServerError['toWire']> {
  return toServerError(e).toWire();
}
