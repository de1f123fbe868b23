// Child-process entry of the raw ORT comparator: the same driver host as the HTTP generator, with
// sessions instead of connections (threads: 0 runs one session on this process's main thread).

import { serveDriver } from '../load/driver-host.js';
import { RawOrtEngine, type RawOrtInit } from './raw-ort-engine.js';

serveDriver({
  threadEntry: new URL('./raw-ort-thread.js', import.meta.url),
  createInProcess: (engine) => RawOrtEngine.create(engine as RawOrtInit),
});
