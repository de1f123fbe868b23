// The request recording flags: samples of answered requests for `infernode validate`.

import type { FlagTable } from './flag-spec.js';

export const RECORDING_FLAGS = {
  'record-requests': {
    kind: 'string',
    help: 'Write a sampled share of answered inference requests (inputs and answer, no headers) to <dir>/<model>/, as samples for infernode validate (off)',
  },
  'record-requests-rate': {
    kind: 'string',
    help: 'Share of answered requests recorded, 0..1 (0.01)',
  },
  'record-requests-max-bytes': {
    kind: 'uint',
    help: 'Tensor bytes recorded at most; then recording stops (268435456)',
  },
} as const satisfies FlagTable;
