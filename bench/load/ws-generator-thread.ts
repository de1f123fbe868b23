// Worker-thread entry of the WebSocket load generator: one WsLoadEngine per thread.

import { parentPort, workerData } from 'node:worker_threads';
import { shardedEngine, type ShardedInit } from './sharded-engine.js';
import { serveThread, type PortLike } from './thread-host.js';
import { WsLoadEngine, type WsEngineInit } from './ws-load-engine.js';

interface ThreadData {
  readonly engine: WsEngineInit | ShardedInit<WsEngineInit>;
  readonly index: number;
}

const data = workerData as ThreadData;
if (parentPort === null) throw new Error('ws-generator-thread.js must run in a worker thread');
serveThread(parentPort as unknown as PortLike, () =>
  Promise.resolve(shardedEngine(data.engine, data.index, (e) => new WsLoadEngine(e, data.index))),
);
