// The harness as a gRPC client of Triton's GRPCInferenceService, generated at run time from the
// vendored protos (schemas/triton/, the protocol's own definition; no server code): the message
// serializers the load generator's pre-built requests come from, and the unary calls made once
// per target or window (metadata and config for the model's signature, statistics, the preflight).

import path from 'node:path';
import {
  credentials,
  loadPackageDefinition,
  status,
  type Client,
  type MethodDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { REPO_ROOT } from '../paths.js';

export const GRPC_PROTOS = path.join(REPO_ROOT, 'schemas', 'triton');

/** Full method paths, as the load generator calls them with pre-serialized bytes. */
export const MODEL_INFER_PATH = '/inference.GRPCInferenceService/ModelInfer';
export const MODEL_STREAM_INFER_PATH = '/inference.GRPCInferenceService/ModelStreamInfer';

/**
 * Channel options of every harness channel: no message-size caps (the server's own limit is what
 * a benchmark meets), and a subchannel of its own, so N channels are N HTTP/2 connections rather
 * than grpc-js's default of one shared connection per target.
 */
export const CHANNEL_OPTIONS = Object.freeze({
  'grpc.max_receive_message_length': -1,
  'grpc.max_send_message_length': -1,
  'grpc.use_local_subchannel_pool': 1,
});

type Unary = (request: object, done: (err: ServiceError | null, reply: unknown) => void) => unknown;

type ServiceStub = Client & Record<string, Unary>;

interface ServiceConstructor {
  new (
    target: string,
    creds: ReturnType<typeof credentials.createInsecure>,
    options: object,
  ): ServiceStub;
  readonly service: Record<string, MethodDefinition<object, unknown>>;
}

let service: ServiceConstructor | undefined;

/**
 * `inference.GRPCInferenceService`, loaded once per process. Longs as numbers: shapes and the
 * statistics counters then read like their JSON counterparts (counters stay far below 2^53).
 */
function inferenceService(): ServiceConstructor {
  service ??= (
    loadPackageDefinition(
      loadSync('grpc_service.proto', {
        keepCase: true,
        longs: Number,
        enums: String,
        defaults: true,
        oneofs: true,
        includeDirs: [GRPC_PROTOS],
      }),
    ) as unknown as { inference: { GRPCInferenceService: ServiceConstructor } }
  ).inference.GRPCInferenceService;
  return service;
}

/** The protobuf bytes of a `ModelInferRequest` given as a plain object. */
export function serializeInferRequest(message: object): Buffer {
  const method = inferenceService().service['ModelInfer'];
  if (method === undefined) throw new Error('grpc_service.proto has no ModelInfer');
  return method.requestSerialize(message);
}

/** A `ModelInferResponse` or `ModelStreamInferResponse` decoded from its bytes. */
export function decodeReply(rpc: 'ModelInfer' | 'ModelStreamInfer', bytes: Buffer): unknown {
  const method = inferenceService().service[rpc];
  if (method === undefined) throw new Error(`grpc_service.proto has no ${rpc}`);
  return method.responseDeserialize(bytes);
}

/** The unary RPCs the harness calls outside the hot loop, as promises. */
export class GrpcServiceClient {
  private readonly stub: ServiceStub;

  constructor(readonly target: string) {
    const Service = inferenceService();
    this.stub = new Service(target, credentials.createInsecure(), CHANNEL_OPTIONS);
  }

  call(rpc: string, request: object): Promise<unknown> {
    const method = this.stub[rpc];
    if (method === undefined) return Promise.reject(new Error(`no RPC ${rpc}`));
    return new Promise((resolve, reject) => {
      method.call(this.stub, request, (err, reply) =>
        err === null ? resolve(reply) : reject(err),
      );
    });
  }

  close(): void {
    this.stub.close();
  }
}

/** `STATUS: details` of a failed call (e.g. `UNAVAILABLE: No connection established`). */
export function describeGrpcError(e: unknown): string {
  const err = e as Partial<ServiceError>;
  if (typeof err.code === 'number' && typeof err.details === 'string') {
    return `${status[err.code] ?? err.code}: ${err.details}`;
  }
  return e instanceof Error ? e.message : String(e);
}
