// Entry point of a front-end thread (started by front-end-threads.ts): runs the thread body with
// the config and port the main thread gave it. A thread that cannot listen reports why and exits.

import { parentPort, workerData } from 'node:worker_threads';
import { runFrontEndThread } from './front-end-thread.js';
import type { FrontEndThreadConfig } from './thread-messages.js';

if (parentPort === null) throw new Error('front-end-worker.js runs only as a worker thread');
const port = parentPort;
runFrontEndThread(workerData as FrontEndThreadConfig, port).catch((e: unknown) => {
  port.postMessage({
    kind: 'log',
    level: 'error',
    fields: {},
    message: `front-end thread could not start: ${e instanceof Error ? e.message : String(e)}`,
  });
  process.exit(1);
});
