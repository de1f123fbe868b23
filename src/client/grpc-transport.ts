// The client over Triton's gRPC service (`protocol: 'grpc'`): ModelInfer with raw_input_contents,
// outputs read from raw_output_contents. The stub is generated at run time from the vendored protos.

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
  InferenceClientError,
  type InferOptions,
  type InferResult,
  type Transport,
} from './client-types.js';

const PROTO_DIR = fileURLToPath(new URL('../../../schemas/triton/', import.meta.url));

interface InferReply {
  readonly model_name: string;
  readonly model_version: string;
  readonly outputs: readonly { name: string; datatype: string; shape: string[] }[];
  readonly raw_output_contents: readonly Uint8Array[];
}

type InferStub = Client & {
  ModelInfer(
    request: object,
    options: { deadline?: number },
    done: (err: ServiceError | null, reply: InferReply) => void,
  ): void;
};

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

  infer(model: string, inputs: readonly Tensor[], options: InferOptions): Promise<InferResult> {
    const parameters: Record<string, object> = {};
    for (const [k, v] of Object.entries(options.parameters ?? {})) {
      parameters[k] =
        typeof v === 'boolean'
          ? { bool_param: v }
          : typeof v === 'string'
            ? { string_param: v }
            : Number.isSafeInteger(v)
              ? { int64_param: v }
              : { double_param: v };
    }
    const request = {
      model_name: model,
      model_version: options.version === undefined ? '' : String(options.version),
      parameters,
      inputs: inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
      outputs: (options.outputs ?? []).map((name) => ({ name })),
      raw_input_contents: inputs.map(tensorBytes),
    };
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    return new Promise((resolve, reject) => {
      this.#stub.ModelInfer(
        request,
        timeoutMs !== undefined ? { deadline: Date.now() + timeoutMs } : {},
        (err, reply) => {
          if (err !== null) {
            reject(clientError(err));
            return;
          }
          try {
            resolve(result(reply));
          } catch (e) {
            reject(e);
          }
        },
      );
    });
  }

  close(): Promise<void> {
    this.#stub.close();
    return Promise.resolve();
  }
}

function result(reply: InferReply): InferResult {
  return {
    modelName: reply.model_name,
    modelVersion: reply.model_version,
    outputs: reply.outputs.map((o, i) => {
      const bytes = reply.raw_output_contents[i];
      if (!isDatatype(o.datatype) || bytes === undefined) {
        throw new InferenceClientError('PROTOCOL', `output ${o.name} has no raw contents`);
      }
      return tensorFromBytes(o.name, o.datatype, o.shape.map(Number), bytes);
    }),
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
