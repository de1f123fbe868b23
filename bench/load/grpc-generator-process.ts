// Child-process entry of the gRPC load generator (`-i grpc`), forked by the orchestrator like the
// HTTP one, so the generator's CPU is its own process's.

import { serveDriver } from './driver-host.js';
import { shardedEngine, type ShardedInit } from './sharded-engine.js';
import { grpcLoadEngine, type GrpcEngineInit } from './grpc-load-engine.js';

serveDriver({
  threadEntry: new URL('./grpc-generator-thread.js', import.meta.url),
  createInProcess: (engine, index) =>
    Promise.resolve(
      shardedEngine(engine as GrpcEngineInit | ShardedInit<GrpcEngineInit>, index, (e) =>
        grpcLoadEngine(e, index),
      ),
    ),
});
