// Child-process entry of the HTTP load generator (forked by the orchestrator), so the generator's
// CPU is its own process's and never shares an event loop with the orchestrator or a server.

import { serveDriver } from './driver-host.js';
import { shardedEngine, type ShardedInit } from './sharded-engine.js';
import { HttpLoadEngine, type HttpEngineInit } from './http-load-engine.js';

serveDriver({
  threadEntry: new URL('./generator-thread.js', import.meta.url),
  createInProcess: (engine, index) =>
    Promise.resolve(
      shardedEngine(
        engine as HttpEngineInit | ShardedInit<HttpEngineInit>,
        index,
        (e) => new HttpLoadEngine(e, index),
      ),
    ),
});
