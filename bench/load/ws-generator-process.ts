// Child-process entry of the WebSocket load generator (`-i ws`), forked by the orchestrator like
// the HTTP one, so the generator's CPU is its own process's.

import { serveDriver } from './driver-host.js';
import { shardedEngine, type ShardedInit } from './sharded-engine.js';
import { WsLoadEngine, type WsEngineInit } from './ws-load-engine.js';

serveDriver({
  threadEntry: new URL('./ws-generator-thread.js', import.meta.url),
  createInProcess: (engine, index) =>
    Promise.resolve(
      shardedEngine(
        engine as WsEngineInit | ShardedInit<WsEngineInit>,
        index,
        (e) => new WsLoadEngine(e, index),
      ),
    ),
});
