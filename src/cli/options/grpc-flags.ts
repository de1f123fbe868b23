// The gRPC flags: Triton's GRPCInferenceService listener, its keepalive, limits and protocol rules.

import type { FlagTable } from './flag-spec.js';

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
