// `--grpc-restricted-protocol=<protocol>[,<protocol>...]:<key>=<value>`: Triton's per-protocol
// access rule. A call to a restricted RPC must carry the header `triton-grpc-protocol-<key>: <value>`.
// The categories, the spec's grammar and the comparison are shared with HTTP
// (protocol/restricted-features.ts); the RPCs in each category are gRPC's own.

import {
  parseRestrictionSpec,
  refuseRepeatedCategories,
  type RestrictedCategory,
  type SpecWording,
} from '../protocol/restricted-features.js';

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
} as const satisfies Record<RestrictedCategory, readonly string[]>);

export type ProtocolName = keyof typeof PROTOCOL_RPCS;

export interface Restriction {
  readonly protocols: readonly ProtocolName[];
  /** The header a caller must send: `triton-grpc-protocol-<key>`, lower case. */
  readonly header: string;
  readonly value: string;
}

const WORDING: SpecWording = {
  flag: '--grpc-restricted-protocol',
  category: 'protocol',
  key: 'key',
};

export function parseRestriction(spec: string): Restriction {
  const { categories, key, value } = parseRestrictionSpec(spec, WORDING);
  return Object.freeze({
    protocols: categories,
    header: `triton-grpc-protocol-${key.toLowerCase()}`,
    value,
  });
}

/** Every `--grpc-restricted-protocol` value, parsed, refusing a protocol restricted twice. */
export function parseRestrictions(specs: readonly string[]): readonly Restriction[] {
  const list = specs.map(parseRestriction);
  refuseRepeatedCategories(
    list.map((r) => ({ categories: r.protocols })),
    WORDING.flag,
    'protocol',
  );
  return Object.freeze(list);
}

/** RPC name -> the restriction guarding it, for every RPC some restriction names. */
export function restrictionsByRpc(list: readonly Restriction[]): Map<string, Restriction> {
  const byRpc = new Map<string, Restriction>();
  for (const r of list)
    for (const p of r.protocols) for (const rpc of PROTOCOL_RPCS[p]) byRpc.set(rpc, r);
  return byRpc;
}
