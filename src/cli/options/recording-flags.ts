// The request recording flags: samples of answered requests for `infernode validate`.

import { fail } from '../../errors.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

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

type RecordingOptions = Pick<
  ServerOptions,
  'recordRequests' | 'recordRequestsRate' | 'recordRequestsMaxBytes'
>;

export function recordingOptions(read: FlagReader<keyof typeof RECORDING_FLAGS>): RecordingOptions {
  return {
    recordRequests: read.last('record-requests'),
    recordRequestsRate: recordRate(read.last('record-requests-rate')),
    recordRequestsMaxBytes: read.uint(
      'record-requests-max-bytes',
      DEFAULT_OPTIONS.recordRequestsMaxBytes,
    ),
  };
}

/** --record-requests-rate: a share from 0 to 1. */
function recordRate(text: string | undefined): number {
  if (text === undefined) return DEFAULT_OPTIONS.recordRequestsRate;
  const n = Number(text);
  if (text.trim() === '' || !(n >= 0 && n <= 1)) {
    throw fail('BAD_REQUEST', `--record-requests-rate expects a number from 0 to 1, got "${text}"`);
  }
  return n;
}
