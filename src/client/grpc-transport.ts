// The client over Triton's gRPC service (`protocol: 'grpc'`): ModelInfer with raw_input_contents,
// outputs read from raw_output_contents, and the repository RPCs. The stub is generated at run time
// from the vendored protos.

import { fileURLToPath } from 'node:url';
import {
  credentials,
  loadPackageDefinition,
  status,
  type Client,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { isDatatype } from '../tensor/datatypes.js';
import { tensorBytes, tensorFromBytes, type Tensor } from './client-tensor.js';
import {
  configText,
  InferenceClientError,
  isRegionInput,
  regionOutputOf,
  requestedOutputs,
  requestParameters,
  sharedMemoryParameters,
  type InferInput,
  type InferOptions,
  type RegionOutput,
  type RegionStatusRow,
  type SharedMemoryCall,
  type InferResult,
  type LoadModelOptions,
  type RepositoryIndexRow,
  type Transport,
  type UnloadModelOptions,
} from './client-types.js';

const PROTO_DIR = fileURLToPath(new URL('../../../schemas/triton/', import.meta.url));

interface InferReply {
  readonly model_name: string;
  readonly model_version: string;
  readonly outputs: readonly {
    name: string;
    datatype: string;
    shape: string[];
    parameters?: Record<string, GrpcParameter>;
  }[];
  readonly raw_output_contents: readonly Uint8Array[];
}

type Rpc<Reply> = (
  request: object,
  options: { deadline?: number },
  done: (err: ServiceError | null, reply: Reply) => void,
) => void;

/** An InferParameter as proto-loader reads it (defaults: true, so every member is present). */
interface GrpcParameter {
  readonly string_param?: string;
  readonly int64_param?: string;
  readonly uint64_param?: string;
}

interface GrpcRegionRow {
  readonly name: string;
  readonly key: string;
  readonly offset: string;
  readonly byte_size: string;
}

type InferStub = Client & {
  SystemSharedMemoryRegister: Rpc<object>;
  SystemSharedMemoryUnregister: Rpc<object>;
  SystemSharedMemoryStatus: Rpc<{ regions: Record<string, GrpcRegionRow> }>;
  ModelInfer: Rpc<InferReply>;
  RepositoryIndex: Rpc<{ models: RepositoryIndexRow[] }>;
  RepositoryModelLoad: Rpc<object>;
  RepositoryModelUnload: Rpc<object>;
};

/**
 * ModelInferRequest.parameters as InferParameter messages: `parameters` and the sequence options.
 * Integers go as int64_param (as Triton's clients send sequence_id), strings as string_param.
 */
export function grpcParameters(options: InferOptions): Record<string, object> {
  return inferParameters(requestParameters(options));
}

/** Parameters as InferParameter messages. */
function inferParameters(
  values: Readonly<Record<string, string | number | boolean>>,
): Record<string, object> {
  const parameters: Record<string, object> = {};
  for (const [k, v] of Object.entries(values)) {
    parameters[k] =
      typeof v === 'boolean'
        ? { bool_param: v }
        : typeof v === 'string'
          ? { string_param: v }
          : Number.isSafeInteger(v)
            ? { int64_param: v }
            : { double_param: v };
  }
  return parameters;
}

export class GrpcTransport implements Transport {
  readonly #stub: InferStub;
  readonly #defaultTimeoutMs: number | undefined;

  /** `target`: host:port of the gRPC front end (a grpc:// or http:// prefix is dropped). */
  constructor(target: string, defaultTimeoutMs: number | undefined) {
    const definition = loadPackageDefinition(
      loadSync('grpc_service.proto', {
        keepCase: true,
        longs: String,
        enums: String,
        defaults: true,
        includeDirs: [PROTO_DIR],
      }),
    ) as unknown as {
      inference: { GRPCInferenceService: new (...args: unknown[]) => InferStub };
    };
    this.#stub = new definition.inference.GRPCInferenceService(
      target.replace(/^[a-z]+:\/\//, '').replace(/\/+$/, ''),
      credentials.createInsecure(),
      { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
    );
    this.#defaultTimeoutMs = defaultTimeoutMs;
  }

  async infer(
    model: string,
    inputs: readonly InferInput[],
    options: InferOptions,
  ): Promise<InferResult> {
    const request = {
      model_name: model,
      model_version: options.version === undefined ? '' : String(options.version),
      parameters: grpcParameters(options),
      inputs: inputs.map((t) => ({
        name: t.name,
        datatype: t.datatype,
        shape: t.shape,
        ...(isRegionInput(t) && {
          parameters: inferParameters(sharedMemoryParameters(t.sharedMemory)),
        }),
      })),
      outputs: (requestedOutputs(options) ?? []).map((name) => {
        const ref = options.outputRegions?.[name];
        return ref === undefined
          ? { name }
          : { name, parameters: inferParameters(sharedMemoryParameters(ref)) };
      }),
      // Inputs in a region have no entry, as in Triton: the entries follow the other inputs.
      raw_input_contents: inputs.flatMap((t) => (isRegionInput(t) ? [] : [tensorBytes(t)])),
    };
    return this.#call(this.#stub.ModelInfer, request, options.timeoutMs).then(result);
  }

  async sharedMemory(call: SharedMemoryCall, timeoutMs?: number): Promise<RegionStatusRow[]> {
    switch (call.op) {
      case 'register':
        await this.#call(
          this.#stub.SystemSharedMemoryRegister,
          { name: call.name, key: call.key, offset: call.offset, byte_size: call.byteSize },
          timeoutMs,
        );
        return [];
      case 'unregister':
        await this.#call(
          this.#stub.SystemSharedMemoryUnregister,
          { name: call.name ?? '' },
          timeoutMs,
        );
        return [];
      case 'status': {
        const reply = await this.#call(
          this.#stub.SystemSharedMemoryStatus,
          { name: call.name ?? '' },
          timeoutMs,
        );
        return Object.values(reply.regions).map((r) => ({
          name: r.name,
          key: r.key,
          offset: Number(r.offset),
          byteSize: Number(r.byte_size),
        }));
      }
    }
  }

  async repositoryIndex(readyOnly: boolean, timeoutMs?: number): Promise<RepositoryIndexRow[]> {
    const reply = await this.#call(this.#stub.RepositoryIndex, { ready: readyOnly }, timeoutMs);
    return reply.models;
  }

  async loadModel(model: string, options: LoadModelOptions): Promise<void> {
    const parameters: Record<string, object> = {};
    const config = configText(options);
    if (config !== undefined) parameters['config'] = { string_param: config };
    for (const [path, bytes] of Object.entries(options.files ?? {})) {
      parameters[`file:${path}`] = { bytes_param: bytes };
    }
    const request = { model_name: model, parameters };
    await this.#call(this.#stub.RepositoryModelLoad, request, options.timeoutMs);
  }

  async unloadModel(model: string, options: UnloadModelOptions): Promise<void> {
    const request = {
      model_name: model,
      parameters: { unload_dependents: { bool_param: options.unloadDependents ?? false } },
    };
    await this.#call(this.#stub.RepositoryModelUnload, request, options.timeoutMs);
  }

  close(): Promise<void> {
    this.#stub.close();
    return Promise.resolve();
  }

  /** One unary call, with the deadline of `timeoutMs` (or the default). */
  #call<Reply>(rpc: Rpc<Reply>, request: object, timeoutMs: number | undefined): Promise<Reply> {
    const ms = timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise((resolve, reject) => {
      rpc.call(
        this.#stub,
        request,
        ms !== undefined ? { deadline: Date.now() + ms } : {},
        (err, reply) => (err !== null ? reject(clientError(err)) : resolve(reply)),
      );
    });
  }
}

function result(reply: InferReply): InferResult {
  const outputs: Tensor[] = [];
  const regionOutputs: RegionOutput[] = [];
  // Outputs written into a region have no raw_output_contents entry (as in Triton).
  let raw = 0;
  for (const o of reply.outputs) {
    if (!isDatatype(o.datatype)) {
      throw new InferenceClientError('PROTOCOL', `output ${o.name} has unknown datatype`);
    }
    const shape = o.shape.map(Number);
    const inRegion = regionOutputOf(o.name, o.datatype, shape, plainParameters(o.parameters));
    if (inRegion !== undefined) {
      regionOutputs.push(inRegion);
      continue;
    }
    const bytes = reply.raw_output_contents[raw++];
    if (bytes === undefined) {
      throw new InferenceClientError('PROTOCOL', `output ${o.name} has no raw contents`);
    }
    outputs.push(tensorFromBytes(o.name, o.datatype, shape, bytes));
  }
  return { modelName: reply.model_name, modelVersion: reply.model_version, outputs, regionOutputs };
}

/** The shared-memory parameters of an output as plain values (uint64/int64 strings as numbers). */
function plainParameters(
  parameters: Record<string, GrpcParameter> | undefined,
): Record<string, unknown> | undefined {
  const region = parameters?.['shared_memory_region']?.string_param;
  if (parameters === undefined || region === undefined || region === '') return undefined;
  const count = (p: GrpcParameter | undefined) =>
    p === undefined ? undefined : Number(p.int64_param ?? 0) || Number(p.uint64_param ?? 0);
  return {
    shared_memory_region: region,
    shared_memory_byte_size: count(parameters['shared_memory_byte_size']),
    shared_memory_offset: count(parameters['shared_memory_offset']),
  };
}

/** `GRPC_<STATUS>` (e.g. GRPC_INVALID_ARGUMENT), TIMEOUT for a passed deadline, CONNECTION. */
function clientError(err: ServiceError): InferenceClientError {
  if (err.code === status.DEADLINE_EXCEEDED) {
    return new InferenceClientError('TIMEOUT', err.details);
  }
  if (err.code === status.UNAVAILABLE && /connect|No connection/i.test(err.details)) {
    return new InferenceClientError('CONNECTION', err.details);
  }
  return new InferenceClientError(`GRPC_${status[err.code]}`, err.details);
}
