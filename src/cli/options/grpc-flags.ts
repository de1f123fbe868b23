// The gRPC flags: Triton's GRPCInferenceService listener, its keepalive, limits and protocol rules.

import { fail } from '../../errors.js';
import type { CompressionLevel } from '../../grpc/grpc-server.js';
import { parseRestrictions } from '../../grpc/restricted-protocol.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const GRPC_FLAGS = {
  'allow-grpc': {
    kind: 'bool',
    help: "Serve Triton's GRPCInferenceService and grpc.health.v1.Health (true)",
  },
  'grpc-address': { kind: 'string', help: 'Address gRPC listens on (0.0.0.0)' },
  'grpc-port': { kind: 'port', help: 'gRPC port (8001)' },
  'reuse-grpc-port': {
    kind: 'bool',
    help: 'Listen on the gRPC port with SO_REUSEPORT so several processes can share it (false)',
  },
  'grpc-infer-response-compression-level': {
    kind: 'string',
    help: 'none | low | med | high: accepted for Triton command lines; no effect, grpc-js compresses no response (none)',
  },
  'grpc-keepalive-time': { kind: 'uint', help: 'Milliseconds between keepalive pings (7200000)' },
  'grpc-keepalive-timeout': {
    kind: 'uint',
    help: 'Milliseconds to wait for a keepalive ping answer (20000)',
  },
  'grpc-max-input-size': {
    kind: 'uint',
    help: 'Largest gRPC request message in bytes; larger get RESOURCE_EXHAUSTED (67108864)',
  },
  'grpc-max-concurrent-streams': {
    kind: 'uint',
    help: 'Streams one gRPC connection may have open at once (128)',
  },
  'grpc-restricted-protocol': {
    kind: 'string',
    repeat: true,
    help: '<protocol>[,<protocol>...]:<key>=<value>: require header triton-grpc-protocol-<key>',
  },
} as const satisfies FlagTable;

type GrpcOptions = Pick<
  ServerOptions,
  | 'allowGrpc'
  | 'grpcAddress'
  | 'grpcPort'
  | 'reuseGrpcPort'
  | 'grpcInferResponseCompressionLevel'
  | 'grpcKeepaliveTimeMs'
  | 'grpcKeepaliveTimeoutMs'
  | 'grpcMaxInputSize'
  | 'grpcMaxConcurrentStreams'
  | 'grpcRestrictedProtocols'
>;

export function grpcOptions(read: FlagReader<keyof typeof GRPC_FLAGS>): GrpcOptions {
  return {
    allowGrpc: read.bool('allow-grpc', DEFAULT_OPTIONS.allowGrpc),
    grpcAddress: read.last('grpc-address') ?? DEFAULT_OPTIONS.grpcAddress,
    grpcPort: read.uint('grpc-port', DEFAULT_OPTIONS.grpcPort, 65535),
    reuseGrpcPort: read.bool('reuse-grpc-port', DEFAULT_OPTIONS.reuseGrpcPort),
    grpcInferResponseCompressionLevel: compressionLevel(
      read.last('grpc-infer-response-compression-level') ??
        DEFAULT_OPTIONS.grpcInferResponseCompressionLevel,
    ),
    grpcKeepaliveTimeMs: read.uint('grpc-keepalive-time', DEFAULT_OPTIONS.grpcKeepaliveTimeMs),
    grpcKeepaliveTimeoutMs: read.uint(
      'grpc-keepalive-timeout',
      DEFAULT_OPTIONS.grpcKeepaliveTimeoutMs,
    ),
    // grpc-js takes the limit as a signed 32-bit length.
    grpcMaxInputSize: read.positive(
      'grpc-max-input-size',
      DEFAULT_OPTIONS.grpcMaxInputSize,
      0x7fffffff,
    ),
    grpcMaxConcurrentStreams: read.positive(
      'grpc-max-concurrent-streams',
      DEFAULT_OPTIONS.grpcMaxConcurrentStreams,
      0xffffffff,
    ),
    grpcRestrictedProtocols: parseRestrictions(read.all('grpc-restricted-protocol')),
  };
}

function compressionLevel(v: string): CompressionLevel {
  if (v === 'none' || v === 'low' || v === 'med' || v === 'high') return v;
  throw fail(
    'BAD_REQUEST',
    `--grpc-infer-response-compression-level: expected none, low, med or high, got '${v}'`,
  );
}
