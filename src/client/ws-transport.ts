// The client over the streaming WebSocket protocol: one socket, many requests in flight, each
// matched to its response by an id the transport assigns. A timeout rejects the request at once and
// sends a cancel frame; a closed socket rejects everything pending.

import WebSocket from 'ws';
import type { ClientCodec } from './client-codecs.js';
import type { Tensor } from './client-tensor.js';
import {
  InferenceClientError,
  type InferOptions,
  type InferResult,
  type Transport,
} from './client-types.js';

interface Pending {
  resolve(result: InferResult): void;
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
    inputs: readonly Tensor[],
    options: InferOptions,
  ): Promise<InferResult> {
    const socket = await this.#connect();
    const id = this.#nextId++;
    const frame = this.#codec.encodeRequest(id, model, inputs, options);
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise<InferResult>((resolve, reject) => {
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
    else pending.resolve(reply.result);
  }

  #failAll(error: InferenceClientError): void {
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
  }
}
