// InferenceClient: one typed client for infernode (and any KServe v2 server over HTTP). Pick the
// protocol once: HTTP with JSON bodies, HTTP with the binary tensor extension, or the streaming
// WebSocket protocol (msgpack by default, FlatBuffers on request), or Triton's gRPC service.
//
//   const client = new InferenceClient({ url: 'http://localhost:8000', protocol: 'ws' });
//   const result = await client.infer('simple', [tensor('INPUT0', 'INT32', [1, 16], a), ...]);
//   output(result, 'OUTPUT0').data; // Int32Array
//   await client.close();
//
// System shared memory (same host; the server needs --allow-client-shm=true):
//
//   const region = SystemSharedMemoryRegion.create('/my_region', 1 << 20);
//   const size = region.write(inputTensor);
//   await client.registerSystemSharedMemory('r', region.key, region.byteSize);
//   const r = await client.infer('m', [regionInput('IN', 'FP32', shape, { region: 'r', byteSize: size })],
//     { outputRegions: { OUT: { region: 'r', byteSize: size, offset: size } } });
//   region.readTensor(regionOutput(r, 'OUT'));
//   await client.unregisterSystemSharedMemory('r'); region.destroy();

import { WS_PATH } from '../websocket/ws-protocol.js';
import { flatbuffersClientCodec, msgpackClientCodec } from './client-codecs.js';
import type {
  InferInput,
  InferOptions,
  InferResult,
  LoadModelOptions,
  RegionStatusRow,
  RepositoryIndexRow,
  Transport,
  UnloadModelOptions,
} from './client-types.js';
import { GrpcTransport } from './grpc-transport.js';
import { HttpTransport } from './http-transport.js';
import { WsTransport } from './ws-transport.js';

export const CLIENT_PROTOCOLS = Object.freeze([
  'http-json',
  'http-binary',
  'ws',
  'ws-flatbuffers',
  'grpc',
] as const);

export type ClientProtocol = (typeof CLIENT_PROTOCOLS)[number];

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
      default:
        // A JavaScript caller (or a cast) can pass anything: say so here, not at the first call.
        throw new TypeError(
          `InferenceClient: protocol must be one of ${CLIENT_PROTOCOLS.join(', ')}, ` +
            `got ${JSON.stringify(String(this.protocol))}`,
        );
    }
  }

  /** Runs one inference. Rejects with InferenceClientError (server code, TIMEOUT, CONNECTION...). */
  infer(
    model: string,
    inputs: readonly InferInput[],
    options: InferOptions = {},
  ): Promise<InferResult> {
    return this.#transport.infer(model, inputs, options);
  }

  /**
   * Registers `byteSize` bytes of the system shared-memory region `key` (from `offset`) under
   * `name`, Triton's `register_system_shared_memory`. The server needs --allow-client-shm=true.
   */
  async registerSystemSharedMemory(
    name: string,
    key: string,
    byteSize: number,
    options: { offset?: number; timeoutMs?: number } = {},
  ): Promise<void> {
    const call = { op: 'register', name, key, offset: options.offset ?? 0, byteSize } as const;
    await this.#transport.sharedMemory(call, options.timeoutMs);
  }

  /** Unregisters the region `name`, or every region when `name` is absent. */
  async unregisterSystemSharedMemory(name?: string, options: { timeoutMs?: number } = {}) {
    const call = { op: 'unregister', ...(name !== undefined && { name }) } as const;
    await this.#transport.sharedMemory(call, options.timeoutMs);
  }

  /** The registered regions, or the region `name` (an error when it is not registered). */
  systemSharedMemoryStatus(
    name?: string,
    options: { timeoutMs?: number } = {},
  ): Promise<RegionStatusRow[]> {
    const call = { op: 'status', ...(name !== undefined && { name }) } as const;
    return this.#transport.sharedMemory(call, options.timeoutMs);
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
  SystemSharedMemoryRegion,
  SHM_DIR,
  type CreateRegionOptions,
} from './system-shared-memory.js';
export {
  InferenceClientError,
  output,
  regionInput,
  regionOutput,
  type InferInput,
  type InferOptions,
  type InferResult,
  type RegionInput,
  type RegionOutput,
  type RegionStatusRow,
  type SharedMemoryRef,
  type LoadModelOptions,
  type RepositoryIndexRow,
  type UnloadModelOptions,
} from './client-types.js';
