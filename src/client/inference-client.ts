// InferenceClient: one typed client for infernode (and any KServe v2 server over HTTP). Pick the
// protocol once: HTTP with JSON bodies, HTTP with the binary tensor extension, or the streaming
// WebSocket protocol (msgpack by default, FlatBuffers on request), or Triton's gRPC service.
//
//   const client = new InferenceClient({ url: 'http://localhost:8000', protocol: 'ws' });
//   const result = await client.infer('simple', [tensor('INPUT0', 'INT32', [1, 16], a), ...]);
//   output(result, 'OUTPUT0').data; // Int32Array
//   await client.close();

import { WS_PATH } from '../websocket/ws-protocol.js';
import { flatbuffersClientCodec, msgpackClientCodec } from './client-codecs.js';
import type { Tensor } from './client-tensor.js';
import type {
  InferOptions,
  InferResult,
  LoadModelOptions,
  RepositoryIndexRow,
  Transport,
  UnloadModelOptions,
} from './client-types.js';
import { GrpcTransport } from './grpc-transport.js';
import { HttpTransport } from './http-transport.js';
import { WsTransport } from './ws-transport.js';

export type ClientProtocol = 'http-json' | 'http-binary' | 'ws' | 'ws-flatbuffers' | 'grpc';

export interface InferenceClientOptions {
  /**
   * The server's HTTP base URL, e.g. http://localhost:8000 (the WebSocket URL is derived); for
   * 'grpc', the gRPC front end's host:port, e.g. localhost:8001.
   */
  readonly url: string;
  /** Default 'http-binary'. */
  readonly protocol?: ClientProtocol;
  /** Default per-request timeout in milliseconds (none when absent). */
  readonly timeoutMs?: number;
}

export class InferenceClient {
  readonly protocol: ClientProtocol;
  readonly #transport: Transport;

  constructor(options: InferenceClientOptions) {
    this.protocol = options.protocol ?? 'http-binary';
    const base = options.url.replace(/\/+$/, '');
    const wsUrl = `${base.replace(/^http/, 'ws')}${WS_PATH}`;
    switch (this.protocol) {
      case 'http-json':
        this.#transport = new HttpTransport(base, false, options.timeoutMs);
        break;
      case 'http-binary':
        this.#transport = new HttpTransport(base, true, options.timeoutMs);
        break;
      case 'ws':
        this.#transport = new WsTransport(wsUrl, msgpackClientCodec, options.timeoutMs);
        break;
      case 'ws-flatbuffers':
        this.#transport = new WsTransport(wsUrl, flatbuffersClientCodec, options.timeoutMs);
        break;
      case 'grpc':
        this.#transport = new GrpcTransport(options.url, options.timeoutMs);
        break;
    }
  }

  /** Runs one inference. Rejects with InferenceClientError (server code, TIMEOUT, CONNECTION...). */
  infer(
    model: string,
    inputs: readonly Tensor[],
    options: InferOptions = {},
  ): Promise<InferResult> {
    return this.#transport.infer(model, inputs, options);
  }

  /** Triton's repository index: every model the server knows (`readyOnly`: the READY ones). */
  repositoryIndex(
    options: { readyOnly?: boolean; timeoutMs?: number } = {},
  ): Promise<RepositoryIndexRow[]> {
    return this.#transport.repositoryIndex(options.readyOnly ?? false, options.timeoutMs);
  }

  /**
   * Loads or reloads a model (the server needs --model-control-mode=explicit), optionally with a
   * config and model files that replace the repository's.
   */
  loadModel(model: string, options: LoadModelOptions = {}): Promise<void> {
    return this.#transport.loadModel(model, options);
  }

  /** Unloads a model (--model-control-mode=explicit). */
  unloadModel(model: string, options: UnloadModelOptions = {}): Promise<void> {
    return this.#transport.unloadModel(model, options);
  }

  /** Closes the WebSocket (if any); requests still pending are rejected. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

export { tensor, type Tensor, type TypedArrayMap } from './client-tensor.js';
export {
  InferenceClientError,
  output,
  type InferOptions,
  type InferResult,
  type LoadModelOptions,
  type RepositoryIndexRow,
  type UnloadModelOptions,
} from './client-types.js';
