// A gRPC client for tests, generated at run time from Triton's protos with @grpc/proto-loader (the
// protocol's own definition, read here independently of the server's loader): every unary RPC as a
// promise that resolves with the response or rejects with the ServiceError.

import {
  credentials,
  loadPackageDefinition,
  Metadata,
  type Client,
  type MethodDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

const PROTOS = path.join(REPO_ROOT, 'schemas', 'triton');

const definition = loadPackageDefinition(
  loadSync(['grpc_service.proto', 'health.proto'], {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: [PROTOS],
  }),
) as any;

/** GRPCInferenceService's method definitions: serializers for a raw HTTP/2 client's frames. */
export const inferenceMethods = definition.inference.GRPCInferenceService.service as Record<
  string,
  MethodDefinition<object, any>
>;

export interface GrpcTestClient {
  /** The generated GRPCInferenceService stub, for streams and metadata-carrying calls. */
  readonly stub: any;
  readonly health: any;
  call(rpc: string, request: unknown, metadata?: Record<string, string>): Promise<any>;
  check(service?: string): Promise<any>;
  close(): void;
}

export function grpcClient(target: string): GrpcTestClient {
  const stub = new definition.inference.GRPCInferenceService(target, credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1,
  });
  const health = new definition.grpc.health.v1.Health(target, credentials.createInsecure());
  const unary = (client: any, rpc: string, request: unknown, metadata?: Record<string, string>) =>
    new Promise<any>((resolve, reject) => {
      const md = new Metadata();
      for (const [k, v] of Object.entries(metadata ?? {})) md.set(k, v);
      client[rpc](request, md, (err: ServiceError | null, res: unknown) =>
        err === null ? resolve(res) : reject(err),
      );
    });
  return {
    stub,
    health,
    call: (rpc, request, metadata) => unary(stub, rpc, request, metadata),
    check: (service = '') => unary(health, 'Check', { service }),
    close: () => {
      (stub as Client).close();
      (health as Client).close();
    },
  };
}
