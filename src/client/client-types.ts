// The client's request options, results and error, shared by its HTTP, gRPC and WebSocket
// transports: inference, and Triton's model-repository calls (index, load, unload).

import type { Parameters } from '../protocol/inference-request.js';
import type { Datatype } from '../tensor/datatypes.js';
import type { Tensor } from './client-tensor.js';

/**
 * Where a tensor lies in a registered system shared-memory region (Triton's `shared_memory_region`,
 * `shared_memory_byte_size`, `shared_memory_offset` parameters). `offset` counts from the start of
 * the registration (its own `offset` into the file added by the server).
 */
export interface SharedMemoryRef {
  /** The name the region was registered under (not its key). */
  readonly region: string;
  readonly byteSize: number;
  /** Default 0. */
  readonly offset?: number;
}

/** An input whose bytes the server reads from a registered region instead of the request. */
export interface RegionInput {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly sharedMemory: SharedMemoryRef;
}

/** What `infer` takes: tensors carried in the request, or inputs named in a region. */
export type InferInput = Tensor | RegionInput;

export function isRegionInput(t: InferInput): t is RegionInput {
  return 'sharedMemory' in t;
}

/** An input named in a region (`region.write(...)` puts its bytes there first). */
export function regionInput(
  name: string,
  datatype: Datatype,
  shape: readonly number[],
  sharedMemory: SharedMemoryRef,
): RegionInput {
  return { name, datatype, shape, sharedMemory };
}

/** An output the server wrote into a region: its parameters, no data (read it from the region). */
export interface RegionOutput {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly region: string;
  /** The bytes written (`shared_memory_byte_size` of the response). */
  readonly byteSize: number;
  /** From the start of the registration, as requested. */
  readonly offset: number;
}

/** A registered system shared-memory region, as the status calls list it. */
export interface RegionStatusRow {
  readonly name: string;
  readonly key: string;
  readonly offset: number;
  readonly byteSize: number;
}

/** The system shared-memory management calls, as each transport sends them. */
export type SharedMemoryCall =
  | {
      readonly op: 'register';
      readonly name: string;
      readonly key: string;
      readonly offset: number;
      readonly byteSize: number;
    }
  /** `name` absent: every region. */
  | { readonly op: 'unregister'; readonly name?: string }
  | { readonly op: 'status'; readonly name?: string };

/** The `shared_memory_*` parameters of a tensor (numbers; the offset only when not 0). */
export function sharedMemoryParameters(ref: SharedMemoryRef): Record<string, string | number> {
  return {
    shared_memory_region: ref.region,
    shared_memory_byte_size: ref.byteSize,
    ...(ref.offset !== undefined && ref.offset !== 0 && { shared_memory_offset: ref.offset }),
  };
}

/** An input in a region as the JSON and msgpack requests name it: its header and region parameters. */
export function regionInputHeader(t: RegionInput): {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly parameters: Record<string, string | number>;
} {
  return {
    name: t.name,
    datatype: t.datatype,
    shape: t.shape,
    parameters: sharedMemoryParameters(t.sharedMemory),
  };
}

/**
 * The outputs a request names: `outputs`, then the `outputRegions` not already among them. Absent
 * when neither option is given (every output, carried in the response).
 */
export function requestedOutputs(options: InferOptions): string[] | undefined {
  if (options.outputs === undefined && options.outputRegions === undefined) return undefined;
  const names = [...(options.outputs ?? [])];
  for (const name of Object.keys(options.outputRegions ?? {})) {
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** A response output's region, read from its `shared_memory_*` parameters (undefined: none). */
export function regionOutputOf(
  name: string,
  datatype: Datatype,
  shape: readonly number[],
  parameters: Readonly<Record<string, unknown>> | undefined,
): RegionOutput | undefined {
  const region = parameters?.['shared_memory_region'];
  if (typeof region !== 'string') return undefined;
  return {
    name,
    datatype,
    shape,
    region,
    byteSize: Number(parameters?.['shared_memory_byte_size'] ?? 0),
    offset: Number(parameters?.['shared_memory_offset'] ?? 0),
  };
}

export interface InferOptions {
  /** A model version; absent: the model's version policy picks. */
  readonly version?: string | number;
  /**
   * Outputs to return; absent: all of them (unless `outputRegions` names some: then only those
   * are requested, as when a Triton client lists its requested outputs).
   */
  readonly outputs?: readonly string[];
  /**
   * Outputs the server writes into registered regions instead of the response, by output name.
   * They are requested (added to `outputs`) and come back in `InferResult.regionOutputs`.
   */
  readonly outputRegions?: Readonly<Record<string, SharedMemoryRef>>;
  /** Client-side deadline in milliseconds; the request is abandoned (and, over WebSocket, cancelled). */
  readonly timeoutMs?: number;
  /** Request parameters (`priority`, `timeout` in microseconds, user keys). */
  readonly parameters?: Parameters;
  /**
   * The sequence (correlation) id for a model with a sequence batcher: an integer in [0, 2^53-1]
   * or a string. Sent as the `sequence_id` request parameter (HTTP, gRPC) or frame field (WebSocket).
   */
  readonly sequenceId?: number | string;
  /** This request starts its sequence (`sequence_start`). */
  readonly sequenceStart?: boolean;
  /** This request ends its sequence (`sequence_end`). */
  readonly sequenceEnd?: boolean;
}

/** The sequence options under their wire names; a field is absent when its option is. */
export interface SequenceFields {
  readonly sequence_id?: number | string;
  readonly sequence_start?: boolean;
  readonly sequence_end?: boolean;
}

/**
 * The sequence options under their wire names. Throws when an option is also given in
 * `parameters` under its wire name: the server would refuse that frame (WebSocket), or one value
 * would silently win (HTTP, gRPC).
 */
export function sequenceFields(options: InferOptions): SequenceFields {
  const fields: Record<string, number | string | boolean> = {};
  const set = (
    key: keyof SequenceFields,
    option: string,
    v: number | string | boolean | undefined,
  ) => {
    if (v === undefined) return;
    if (options.parameters !== undefined && Object.hasOwn(options.parameters, key)) {
      throw new InferenceClientError(
        'OPTIONS',
        `infer option '${option}' and parameters.${key} are both set; set one of them`,
      );
    }
    fields[key] = v;
  };
  const id = options.sequenceId;
  if (typeof id === 'number' && !(Number.isSafeInteger(id) && id >= 0)) {
    // Not sent as is: FlatBuffers' ulong cannot hold it, and every server refuses it anyway.
    throw new InferenceClientError(
      'OPTIONS',
      `infer option 'sequenceId' must be an integer in [0, 2^53-1] or a string, got ${id}`,
    );
  }
  set('sequence_id', 'sequenceId', id);
  set('sequence_start', 'sequenceStart', options.sequenceStart);
  set('sequence_end', 'sequenceEnd', options.sequenceEnd);
  return fields;
}

/** The request parameters HTTP and gRPC send: `parameters` plus the sequence options. */
export function requestParameters(options: InferOptions): Parameters {
  return { ...options.parameters, ...sequenceFields(options) };
}

export interface InferResult {
  readonly modelName: string;
  readonly modelVersion: string;
  /** Outputs carried in the response. */
  readonly outputs: readonly Tensor[];
  /** Outputs written into shared-memory regions (`outputRegions`); empty when none. */
  readonly regionOutputs: readonly RegionOutput[];
}

/** One row of the repository index, as the server sent it. */
export interface RepositoryIndexRow {
  readonly name: string;
  /** Absent for a model without a version (over gRPC, which has no absent strings: ''). */
  readonly version?: string;
  /** UNAVAILABLE, LOADING, READY or UNLOADING; absent for a model never loaded (gRPC: ''). */
  readonly state?: string;
  readonly reason?: string;
}

export interface LoadModelOptions {
  /** A ModelConfig to use instead of config.pbtxt: its JSON text, or an object to serialise. */
  readonly config?: string | Readonly<Record<string, unknown>>;
  /** Model files by path in the model directory, e.g. `{'1/model.onnx': bytes}`; need `config`. */
  readonly files?: Readonly<Record<string, Uint8Array>>;
  readonly timeoutMs?: number;
}

export interface UnloadModelOptions {
  /** Also unload the models that depend on this one. */
  readonly unloadDependents?: boolean;
  readonly timeoutMs?: number;
}

/** The config as the wire carries it: JSON text. */
export function configText(options: LoadModelOptions): string | undefined {
  const { config } = options;
  return config === undefined || typeof config === 'string' ? config : JSON.stringify(config);
}

/** Finds an output by name; throws when the response has none of that name. */
export function output(result: InferResult, name: string): Tensor {
  const found = result.outputs.find((o) => o.name === name);
  if (found === undefined) {
    throw new Error(
      `the response has no output '${name}' (it has ${result.outputs.map((o) => o.name).join(', ')})`,
    );
  }
  return found;
}

/**
 * A failed request. `code` is the server's catalog code (WebSocket), `GRPC_<status name>` (gRPC),
 * `HTTP_<status>` (HTTP, whose error bodies carry only a message), or TIMEOUT / CONNECTION /
 * PROTOCOL / OPTIONS (contradictory infer options) for client-side failures.
 */
export class InferenceClientError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  constructor(code: string, message: string, status?: number) {
    super(message);
    this.name = 'InferenceClientError';
    this.code = code;
    this.status = status;
  }
}

/** Finds an output written into a region by name; throws when the response has none. */
export function regionOutput(result: InferResult, name: string): RegionOutput {
  const found = result.regionOutputs.find((o) => o.name === name);
  if (found === undefined) {
    throw new Error(
      `the response has no output '${name}' in shared memory (it has ` +
        `${result.regionOutputs.map((o) => o.name).join(', ') || 'none'})`,
    );
  }
  return found;
}

/** One way of carrying requests: the client picks one at construction. */
export interface Transport {
  infer(model: string, inputs: readonly InferInput[], options: InferOptions): Promise<InferResult>;
  /** Triton's system shared-memory calls; register and unregister answer []. */
  sharedMemory(call: SharedMemoryCall, timeoutMs?: number): Promise<RegionStatusRow[]>;
  repositoryIndex(readyOnly: boolean, timeoutMs?: number): Promise<RepositoryIndexRow[]>;
  loadModel(model: string, options: LoadModelOptions): Promise<void>;
  unloadModel(model: string, options: UnloadModelOptions): Promise<void>;
  close(): Promise<void>;
}
