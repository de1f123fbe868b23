// The data plane inside a front-end thread: every call is a message to the main thread, which owns
// the models (plane-host.ts answers). `infer` posts the decoded request with its tensor bytes
// packed into one transferred buffer (wire-tensors.ts); the HTTP routes and WebSocket sessions
// above it are the same code the main thread runs, unaware of the hop.
// It has no `admitTenant`: the tenant gate's counts live on the main thread, and asking it before
// decoding would cost a round trip per request to spare a decode that runs here, off the main thread;
// the main thread admits when the request arrives, as over gRPC and WebSocket.

import type { TraceSettingsJson, TraceUpdate } from '../trace/trace-settings.js';
import type {
  DataPlanePort,
  InferContext,
  ModelConfigJson,
  ModelLoadRequest,
  ModelMetadata,
  ModelStatisticsResponse,
  ModelUnloadRequest,
  RepositoryIndexEntry,
  ServerMetadata,
} from '../dataplane/data-plane-api.js';
import { fail, fromWire, InferenceServerError } from '../errors.js';
import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../protocol/inference-request.js';
import type { PlaneCall, ToMain, ToThread } from './thread-messages.js';
import { packRequest } from './wire-tensors.js';
import type { LogSettings, LogSettingsUpdate } from '../logging/log-settings.js';
import type { SharedMemoryAnswer, SharedMemoryCall } from '../shared-memory/shm-calls.js';

interface Pending {
  resolve(value: unknown): void;
  reject(error: InferenceServerError): void;
  /** A decoupled model's responses, for a transport that streams them. */
  readonly partial?: (response: InferenceResponse | InferenceServerError) => void;
  /** Stops listening for the client's abort. */
  readonly done?: () => void;
}

/** Posts to the main thread; `transfer` gives the listed buffers up. */
export type PostToMain = (message: ToMain, transfer?: ArrayBuffer[]) => void;

export class RemoteDataPlane implements DataPlanePort {
  readonly #post: PostToMain;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  /** Set once the main thread can no longer answer (the thread is closing). */
  #gone: InferenceServerError | undefined;

  constructor(post: PostToMain) {
    this.#post = post;
  }

  /** Delivers one message from the main thread (the owner of the port calls this). */
  receive(message: ToThread): void {
    switch (message.kind) {
      case 'reply': {
        const pending = this.#pending.get(message.id);
        if (pending === undefined) return;
        this.#pending.delete(message.id);
        pending.done?.();
        if (message.ok) pending.resolve(message.value);
        else pending.reject(fromWire(message.error));
        return;
      }
      case 'partial': {
        const r = message.response;
        this.#pending.get(message.id)?.partial?.('error' in r ? fromWire(r.error) : r);
        return;
      }
      case 'control':
      case 'logSettings':
        return;
    }
  }

  /** The main thread will answer nothing more: every open call fails with `why`. */
  abandon(why: InferenceServerError): void {
    this.#gone = why;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      p.done?.();
      p.reject(why);
    }
  }

  /** Calls in flight, for tests and the drain. */
  get inFlight(): number {
    return this.#pending.size;
  }

  live(): boolean {
    return true;
  }

  ready(): Promise<boolean> {
    return this.#call('ready', []);
  }

  serverMetadata(): Promise<ServerMetadata> {
    return this.#call('serverMetadata', []);
  }

  modelReady(name: string, version: string | undefined): Promise<boolean> {
    return this.#call('modelReady', [name, version]);
  }

  modelMetadata(name: string, version: string | undefined): Promise<ModelMetadata> {
    return this.#call('modelMetadata', [name, version]);
  }

  modelConfig(name: string, version: string | undefined): Promise<ModelConfigJson> {
    return this.#call('modelConfig', [name, version]);
  }

  modelStats(
    name: string | undefined,
    version: string | undefined,
  ): Promise<ModelStatisticsResponse> {
    return this.#call('modelStats', [name, version]);
  }

  repositoryIndex(readyOnly: boolean): Promise<RepositoryIndexEntry[]> {
    return this.#call('repositoryIndex', [readyOnly]);
  }

  loadModel(name: string, request: ModelLoadRequest): Promise<void> {
    return this.#call('loadModel', [name, request]);
  }

  unloadModel(name: string, request: ModelUnloadRequest): Promise<void> {
    return this.#call('unloadModel', [name, request]);
  }

  sharedMemory(call: SharedMemoryCall): Promise<SharedMemoryAnswer> {
    return this.#call('sharedMemory', [call]);
  }

  traceSetting(
    model: string | undefined,
    update: TraceUpdate | undefined,
  ): Promise<TraceSettingsJson> {
    return this.#call('traceSetting', [model, update]);
  }

  /** The logging extension, answered by the main thread's LogControl (LogSettingsPort). */
  logSettings(update: LogSettingsUpdate | undefined): Promise<LogSettings> {
    return this.#call('logSettings', [update]);
  }

  infer(
    name: string,
    version: string | undefined,
    request: DecodedRequest | RawBinaryRequest,
    ctx: InferContext,
  ): Promise<InferenceResponse> {
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    const packed = packRequest(request);
    const signal = ctx.signal;
    // The client went away: main withdraws the request (a queued one is answered CANCELLED, a
    // running one is dropped when its run returns), exactly as for a main-thread request.
    const onAbort = (): void => {
      const reason = signal.reason;
      this.#post({
        kind: 'cancel',
        id,
        ...(reason instanceof InferenceServerError && { reason: reason.toWire() }),
      });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const answer = new Promise<InferenceResponse>((resolve, reject) => {
      this.#pending.set(id, {
        resolve: resolve as (value: unknown) => void,
        reject,
        done: () => signal.removeEventListener('abort', onAbort),
        ...(ctx.responses !== undefined && { partial: ctx.responses }),
      });
    });
    this.#post(
      {
        kind: 'infer',
        id,
        model: name,
        version,
        request: packed.value,
        arrivalNs: ctx.arrivalNs,
        streams: ctx.responses !== undefined,
        ...(ctx.traceparent !== undefined && { traceparent: ctx.traceparent }),
        ...(ctx.tenant !== undefined && { tenant: ctx.tenant }),
      },
      packed.transfer,
    );
    if (signal.aborted) onAbort();
    return answer;
  }

  #call<T>(method: PlaneCall, args: unknown[]): Promise<T> {
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    const answer = new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
    this.#post({ kind: 'call', id, method, args });
    return answer;
  }
}

/** The error open calls get when a thread closes before main answered them. */
export function threadClosing(): InferenceServerError {
  return fail('SHUTTING_DOWN', 'the front-end thread is closing');
}
