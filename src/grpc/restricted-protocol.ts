// `--grpc-restricted-protocol=<protocol>[,<protocol>...]:<key>=<value>`: Triton's per-protocol
// access rule. A call to a restricted RPC must carry the header `triton-grpc-protocol-<key>: <value>`.

import { fail } from '../errors.js';

/** Triton's protocol groups, and the RPCs in each. */
export const PROTOCOL_RPCS = Object.freeze({
  health: ['ServerLive', 'ServerReady', 'ModelReady', 'Check'],
  metadata: ['ServerMetadata', 'ModelMetadata'],
  inference: ['ModelInfer', 'ModelStreamInfer'],
  'shared-memory': [
    'SystemSharedMemoryStatus',
    'SystemSharedMemoryRegister',
    'SystemSharedMemoryUnregister',
    'CudaSharedMemoryStatus',
    'CudaSharedMemoryRegister',
    'CudaSharedMemoryUnregister',
  ],
  'model-config': ['ModelConfig'],
  'model-repository': ['RepositoryIndex', 'RepositoryModelLoad', 'RepositoryModelUnload'],
  statistics: ['ModelStatistics'],
  trace: ['TraceSetting'],
  logging: ['LogSettings'],
} as const);

export type ProtocolName = keyof typeof PROTOCOL_RPCS;

export interface Restriction {
  readonly protocols: readonly ProtocolName[];
  /** The header a caller must send: `triton-grpc-protocol-<key>`, lower case. */
  readonly header: string;
  readonly value: string;
}

export function parseRestriction(spec: string): Restriction {
  const m = /^([^:]+):([^=]+)=(.*)$/.exec(spec);
  if (m === null) {
    throw fail(
      'BAD_REQUEST',
      `--grpc-restricted-protocol: expected <protocol>[,<protocol>...]:<key>=<value>, got '${spec}'`,
    );
  }
  const protocols = (m[1] as string).split(',').map((p) => p.trim());
  for (const p of protocols) {
    if (!Object.prototype.hasOwnProperty.call(PROTOCOL_RPCS, p)) {
      throw fail(
        'BAD_REQUEST',
        `--grpc-restricted-protocol: unknown protocol '${p}'; expected one of ` +
          Object.keys(PROTOCOL_RPCS).join(', '),
      );
    }
  }
  return Object.freeze({
    protocols: protocols as ProtocolName[],
    header: `triton-grpc-protocol-${(m[2] as string).trim().toLowerCase()}`,
    value: m[3] as string,
  });
}

/** RPC name -> the restriction guarding it, for every RPC some restriction names. */
export function restrictionsByRpc(list: readonly Restriction[]): Map<string, Restriction> {
  const byRpc = new Map<string, Restriction>();
  for (const r of list)
    for (const p of r.protocols) for (const rpc of PROTOCOL_RPCS[p]) byRpc.set(rpc, r);
  return byRpc;
}
