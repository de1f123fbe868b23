// Child-process entry of the HTTP load generator (forked by the orchestrator), so the generator's
// CPU is its own process's and never shares an event loop with the orchestrator or a server.

import { serveDriver } from './driver-host.js';
import { HttpLoadEngine, type HttpEngineInit } from './http-load-engine.js';

serveDriver({
  threadEntry: new URL('./generator-thread.js', import.meta.url),
  createInProcess: (engine, index) =>
    Promise.resolve(new HttpLoadEngine(engine as HttpEngineInit, index)),
});
