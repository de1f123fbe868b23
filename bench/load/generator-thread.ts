// Worker-thread entry of the HTTP load generator: one HttpLoadEngine per thread.

import { parentPort, workerData } from 'node:worker_threads';
import { HttpLoadEngine, type HttpEngineInit } from './http-load-engine.js';
import { shardedEngine, type ShardedInit } from './sharded-engine.js';
import { serveThread, type PortLike } from './thread-host.js';

interface ThreadData {
  readonly engine: HttpEngineInit | ShardedInit<HttpEngineInit>;
  readonly index: number;
}

const data = workerData as ThreadData;
if (parentPort === null) throw new Error('generator-thread.js must run in a worker thread');
serveThread(parentPort as unknown as PortLike, () =>
  Promise.resolve(shardedEngine(data.engine, data.index, (e) => new HttpLoadEngine(e, data.index))),
);
