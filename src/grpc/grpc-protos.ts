// Loads the vendored Triton protos (schemas/triton/) at run time: the service definitions grpc-js
// serves. Read once per process; the package ships the .proto files, not generated code. The two
// inference RPCs carry tensors, so their messages go through the hand-written codec instead of
// protobufjs (infer-request-wire.ts, infer-response-wire.ts); every other message is proto-loader's.

import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, type GrpcObject, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type Options } from '@grpc/proto-loader';
import { decodeModelInferRequest } from './infer-request-wire.js';
import { deserializeStreamRequest } from './model-stream.js';
import { encodeModelInferResponse, encodeModelStreamInferResponse } from './infer-response-wire.js';

/** schemas/triton/ from dist/src/grpc/ (and from src/grpc/ under ts-node alike). */
export const PROTO_DIR = fileURLToPath(new URL('../../../schemas/triton/', import.meta.url));

/**
 * How messages map to objects. int64 as decimal strings keeps full 64-bit values; `oneofs` names
 * the member of InferParameter that is set; `defaults` fills absent repeated fields with [].
 */
export const PROTO_OPTIONS: Options = Object.freeze({
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
});

export interface TritonServices {
  readonly inference: ServiceDefinition;
  readonly health: ServiceDefinition;
}

let loaded: TritonServices | undefined;

export function tritonServices(): TritonServices {
  loaded ??= (() => {
    const root = loadPackageDefinition(
      loadSync(['grpc_service.proto', 'health.proto'], PROTO_OPTIONS),
    );
    const pick = (path: string): ServiceDefinition => {
      let node: unknown = root;
      for (const part of path.split('.')) node = (node as GrpcObject)[part];
      return (node as { service: ServiceDefinition }).service;
    };
    return {
      inference: withInferCodec(pick('inference.GRPCInferenceService')),
      health: pick('grpc.health.v1.Health'),
    };
  })();
  return loaded;
}

/** The service with ModelInfer and ModelStreamInfer (de)serialized by the hand-written codec. */
function withInferCodec(service: ServiceDefinition): ServiceDefinition {
  const infer = service['ModelInfer'];
  const stream = service['ModelStreamInfer'];
  if (infer === undefined || stream === undefined) {
    throw new Error('grpc_service.proto has no ModelInfer or ModelStreamInfer');
  }
  return {
    ...service,
    ModelInfer: {
      ...infer,
      requestDeserialize: decodeModelInferRequest,
      responseSerialize: encodeModelInferResponse,
    },
    ModelStreamInfer: {
      ...stream,
      requestDeserialize: deserializeStreamRequest,
      responseSerialize: encodeModelStreamInferResponse,
    },
  };
}
