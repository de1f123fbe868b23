// The client over the streaming WebSocket protocol: one socket, many requests in flight (inference
// and repository calls), each matched to its response by an id the transport assigns. A timeout
// rejects the request at once and sends a cancel frame; a closed socket rejects everything pending.

import WebSocket from 'ws';
import type { ClientCodec, RepositoryRequest, ServerReply } from './client-codecs.js';
import {
  configText,
  InferenceClientError,
  type InferInput,
  type InferOptions,
  type RegionStatusRow,
  type SharedMemoryCall,
  type InferResult,
  type LoadModelOptions,
  type RepositoryIndexRow,
  type Transport,
  type UnloadModelOptions,
} from './client-types.js';

/** A reply that is not an error frame. */
type Answer = Exclude<ServerReply, { error: unknown }>;

interface Pending {
  resolve(answer: Answer): void;
  reject(error: InferenceClientError): void;
  timer: NodeJS.Timeout | undefined;
}

export class WsTransport implements Transport {
  readonly #url: string;
  readonly #codec: ClientCodec;
  readonly #defaultTimeoutMs: number | undefined;
  readonly #pending = new Map<number, Pending>();
  #socket: Promise<WebSocket> | undefined;
  #nextId = 1;

  constructor(url: string, codec: ClientCodec, defaultTimeoutMs: number | undefined) {
    this.#url = url;
    this.#codec = codec;
    this.#defaultTimeoutMs = defaultTimeoutMs;
  }

  async infer(
    model: string,
    inputs: readonly InferInput[],
    options: InferOptions,
  ): Promise<InferResult> {
    const answer = await this.#request(
      (id) => this.#codec.encodeRequest(id, model, inputs, options),
      options.timeoutMs,
    );
    if (!('result' in answer)) throw unexpected(answer, 'an inference response');
    return answer.result;
  }

  async repositoryIndex(readyOnly: boolean, timeoutMs?: number): Promise<RepositoryIndexRow[]> {
    const answer = await this.#repository(
      { type: 'repository_index', ready: readyOnly },
      timeoutMs,
    );
    return answer.models ?? [];
  }

  async loadModel(model: string, options: LoadModelOptions): Promise<void> {
    const config = configText(options);
    const request: RepositoryRequest = {
      type: 'model_load',
      model,
      ...(config !== undefined && { config }),
      files: options.files ?? {},
    };
    await this.#repository(request, options.timeoutMs);
  }

  async unloadModel(model: string, options: UnloadModelOptions): Promise<void> {
    const request: RepositoryRequest = {
      type: 'model_unload',
      model,
      unloadDependents: options.unloadDependents ?? false,
    };
    await this.#repository(request, options.timeoutMs);
  }

  async sharedMemory(call: SharedMemoryCall, timeoutMs?: number): Promise<RegionStatusRow[]> {
    const encode = this.#codec.encodeSharedMemory;
    if (encode === undefined) {
      throw new InferenceClientError(
        'OPTIONS',
        `shared-memory frames are not part of ${this.#codec.protocol}: use the 'ws' protocol`,
      );
    }
    const type = `shm_${call.op}`;
    const answer = await this.#request((id) => encode(id, call), timeoutMs);
    if (!('repository' in answer) || answer.repository.type !== type) {
      throw unexpected(answer, `a ${type} answer`);
    }
    return answer.repository.regions ?? [];
  }

  async #repository(
    request: RepositoryRequest,
    timeoutMs: number | undefined,
  ): Promise<{ readonly type: string; readonly models?: RepositoryIndexRow[] }> {
    const answer = await this.#request(
      (id) => this.#codec.encodeRepository(id, request),
      timeoutMs,
    );
    if (!('repository' in answer) || answer.repository.type !== request.type) {
      throw unexpected(answer, `a ${request.type} answer`);
    }
    return answer.repository;
  }

  /**
   * Sends the frame `encode` builds under a new id and waits for its answer. On a timeout the
   * server is sent a cancel frame (it drops a queued inference; a load or unload runs on).
   */
  async #request(encode: (id: number) => Uint8Array, ownTimeoutMs?: number): Promise<Answer> {
    const socket = await this.#connect();
    const id = this.#nextId++;
    const frame = encode(id);
    const timeoutMs = ownTimeoutMs ?? this.#defaultTimeoutMs;
    return new Promise<Answer>((resolve, reject) => {
      const pending: Pending = { resolve, reject, timer: undefined };
      if (timeoutMs !== undefined) {
        pending.timer = setTimeout(() => {
          if (this.#pending.get(id) !== pending) return;
          this.#pending.delete(id);
          // Best effort: the server drops the request if it is still queued.
          if (socket.readyState === WebSocket.OPEN) socket.send(this.#codec.encodeCancel(id));
          reject(new InferenceClientError('TIMEOUT', `no response within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.#pending.set(id, pending);
      socket.send(frame, { binary: true });
    });
  }

  async close(): Promise<void> {
    const opening = this.#socket;
    this.#socket = undefined;
    if (opening === undefined) return;
    const socket = await opening.catch(() => undefined);
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close(1000, 'client closed');
    });
  }

  /** Opens the socket on first use; later calls share it until it closes. */
  #connect(): Promise<WebSocket> {
    this.#socket ??= new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(this.#url, [this.#codec.protocol], { perMessageDeflate: false });
      socket.binaryType = 'nodebuffer';
      socket.once('open', () => resolve(socket));
      socket.once('error', (e) => {
        this.#socket = undefined;
        reject(new InferenceClientError('CONNECTION', `WebSocket ${this.#url}: ${e.message}`));
      });
      socket.on('message', (data: Buffer) => this.#onMessage(data));
      socket.once('close', (code, reason) => {
        this.#socket = undefined;
        this.#failAll(
          new InferenceClientError(
            'CONNECTION',
            `the WebSocket closed (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''})`,
          ),
        );
      });
    });
    return this.#socket;
  }

  #onMessage(data: Buffer): void {
    let reply;
    try {
      reply = this.#codec.decodeReply(
        new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      );
    } catch {
      return; // not a response this client can read; nothing to match it to
    }
    const id = typeof reply.id === 'number' ? reply.id : Number(reply.id);
    const pending = this.#pending.get(id);
    if (pending === undefined) return; // timed out already
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if ('error' in reply)
      pending.reject(new InferenceClientError(reply.error.code, reply.error.message));
    else pending.resolve(reply);
  }

  #failAll(error: InferenceClientError): void {
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
  }
}

/** A well-formed answer of the wrong kind for its request: the server broke the protocol. */
function unexpected(answer: Answer, expected: string): InferenceClientError {
  const got = 'result' in answer ? 'an inference response' : `a ${answer.repository.type} answer`;
  return new InferenceClientError(
    'PROTOCOL',
    `expected ${expected} under id ${answer.id}, got ${got}`,
  );
}
