// The gRPC load engine of one generator thread (`-i grpc`): ModelInfer calls multiplexed over a
// few HTTP/2 connections, or (--streaming) requests multiplexed over ModelStreamInfer streams, one
// per connection. Either way one connection per 64 outstanding requests; the loops are
// MultiplexedLoadEngine's.

import type { LoadEngine } from './load-engine.js';
import { framedMessage } from './grpc-frames.js';
import { GrpcStreamConnection } from './grpc-stream-connection.js';
import { GrpcStreamTemplate, type GrpcRequestPayload } from './grpc-request.js';
import type { GrpcTarget } from './grpc-channel.js';
import { GrpcUnaryConnection } from './grpc-unary-connection.js';
import { MultiplexedLoadEngine } from './multiplexed-load-engine.js';

export interface GrpcEngineInit extends GrpcTarget {
  /** ModelStreamInfer instead of unary ModelInfer calls. */
  readonly streaming: boolean;
  /** Serialized ModelInferRequests (with a placeholder id when streaming), one per data entry. */
  readonly requests: readonly GrpcRequestPayload[];
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
}

export function grpcLoadEngine(init: GrpcEngineInit, threadIndex: number): LoadEngine {
  const common = {
    connections: 0,
    maxConnections: init.maxConnections,
    requestTimeoutMs: init.requestTimeoutMs,
    noun: init.streaming ? 'ModelStreamInfer stream' : 'gRPC channel',
  };
  if (init.streaming) {
    return new MultiplexedLoadEngine(
      {
        ...common,
        payloads: init.requests.map((r) => new GrpcStreamTemplate(r)),
        open: (onOutcome, onClosed) =>
          GrpcStreamConnection.open(init, onOutcome, onClosed, init.requestTimeoutMs),
      },
      threadIndex,
    );
  }
  return new MultiplexedLoadEngine(
    {
      ...common,
      // Framed once: every call writes the same buffer, which nothing mutates.
      payloads: init.requests.map((r) => framedMessage(r.bytes)),
      open: (onOutcome, onClosed) =>
        GrpcUnaryConnection.open(init, onOutcome, onClosed, init.requestTimeoutMs),
    },
    threadIndex,
  );
}
