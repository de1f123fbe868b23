// The worker flags: how inputs and runs reach the ONNX Runtime workers (for tests and comparisons).

import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const WORKER_FLAGS = {
  'disable-sab-tensors': {
    kind: 'flag',
    help: 'Copy inputs in workers even where ORT reads shared memory',
  },
  'disable-doorbell': {
    kind: 'flag',
    help: 'Hand ORT runs to workers as piscina tasks instead of over the doorbell',
  },
} as const satisfies FlagTable;

type WorkerOptions = Pick<ServerOptions, 'disableSabTensors' | 'disableDoorbell'>;

export function workerOptions(read: FlagReader<keyof typeof WORKER_FLAGS>): WorkerOptions {
  return {
    disableSabTensors: read.bool('disable-sab-tensors', DEFAULT_OPTIONS.disableSabTensors),
    disableDoorbell: read.bool('disable-doorbell', DEFAULT_OPTIONS.disableDoorbell),
  };
}
