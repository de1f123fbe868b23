// Worker-thread entry of the raw ORT comparator: each thread owns one InferenceSession.

import { parentPort, workerData } from 'node:worker_threads';
import { serveThread } from '../load/thread-host.js';
import { RawOrtEngine, type RawOrtInit } from './raw-ort-engine.js';

const data = workerData as { readonly engine: RawOrtInit };
if (parentPort === null) throw new Error('raw-ort-thread.js must run in a worker thread');
serveThread(parentPort, () => RawOrtEngine.create(data.engine));
