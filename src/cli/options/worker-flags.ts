// The worker flags: how inputs and runs reach the ONNX Runtime workers (for tests and comparisons).

import type { FlagTable } from './flag-spec.js';

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
