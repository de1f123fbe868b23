// The gRPC load engine of one generator thread (`-i grpc`): ModelInfer calls multiplexed over a
// few channels, or (--streaming) requests multiplexed over ModelStreamInfer streams, one per
// channel. Either way one connection per 64 outstanding requests; the loops are
// MultiplexedLoadEngine's.

import type { LoadEngine } from './load-engine.js';
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
      // Views of the structured-cloned bytes: grpc-js copies each into its own frame.
      payloads: init.requests.map((r) =>
        Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength),
      ),
      open: (onOutcome, onClosed) =>
        GrpcUnaryConnection.open(init, onOutcome, onClosed, init.requestTimeoutMs),
    },
    threadIndex,
  );
}
