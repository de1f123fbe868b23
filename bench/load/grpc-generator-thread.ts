// Worker-thread entry of the gRPC load generator: one gRPC load engine per thread.

import { parentPort, workerData } from 'node:worker_threads';
import { grpcLoadEngine, type GrpcEngineInit } from './grpc-load-engine.js';
import { shardedEngine, type ShardedInit } from './sharded-engine.js';
import { serveThread, type PortLike } from './thread-host.js';

interface ThreadData {
  readonly engine: GrpcEngineInit | ShardedInit<GrpcEngineInit>;
  readonly index: number;
}

const data = workerData as ThreadData;
if (parentPort === null) throw new Error('grpc-generator-thread.js must run in a worker thread');
serveThread(parentPort as unknown as PortLike, () =>
  Promise.resolve(shardedEngine(data.engine, data.index, (e) => grpcLoadEngine(e, data.index))),
);
