// The client's request options, results and error, shared by its HTTP, gRPC and WebSocket
// transports: inference, and Triton's model-repository calls (index, load, unload).

import type { Parameters } from '../protocol/inference-request.js';
import type { Tensor } from './client-tensor.js';

export interface InferOptions {
  /** A model version; absent: the model's version policy picks. */
  readonly version?: string | number;
  /** Outputs to return; absent: all of them. */
  readonly outputs?: readonly string[];
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
  readonly outputs: readonly Tensor[];
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

/** One way of carrying requests: the client picks one at construction. */
export interface Transport {
  infer(model: string, inputs: readonly Tensor[], options: InferOptions): Promise<InferResult>;
  repositoryIndex(readyOnly: boolean, timeoutMs?: number): Promise<RepositoryIndexRow[]>;
  loadModel(model: string, options: LoadModelOptions): Promise<void>;
  unloadModel(model: string, options: UnloadModelOptions): Promise<void>;
  close(): Promise<void>;
}
