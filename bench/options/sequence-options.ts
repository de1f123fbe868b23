// perf_analyzer's sequence flags, parsed once: how long each sequence is (`--sequence-length`,
// varied by `--sequence-length-variation` percent either way), which ids sequences take
// (`--sequence-id-range start[:end]`, wrapping around at the end), and how many sequences run at
// once in request-rate mode (`--num-of-sequences`; in concurrency mode, as in perf_analyzer, each
// outstanding request is its own sequence). They apply when the model's config has
// `sequence_batching`, which the harness reads from the server.

import { UsageError } from './usage-error.js';

/** The largest id every transport carries exactly (a JavaScript number; infernode's WS limit). */
export const MAX_SEQUENCE_ID = Number.MAX_SAFE_INTEGER;

export interface SequenceIdRange {
  readonly start: number;
  /** Inclusive. */
  readonly end: number;
}

export interface SequenceOptions {
  /** Base requests per sequence (perf_analyzer's default 20). */
  readonly length: number;
  /** Each sequence's length is drawn within ± this percent of `length` (default 20). */
  readonly lengthVariation: number;
  readonly numSequences: number;
  readonly idRange: SequenceIdRange;
  /** Whether any sequence flag was given (they are refused for a model without sequences). */
  readonly explicit: boolean;
}

export const DEFAULT_SEQUENCE_OPTIONS: SequenceOptions = Object.freeze({
  length: 20,
  lengthVariation: 20,
  numSequences: 4,
  idRange: Object.freeze({ start: 1, end: MAX_SEQUENCE_ID }),
  explicit: false,
});

const ID = /^\d+$/;

/** `start` or `start:end`, whole numbers from 1 (0 is "no sequence" to Triton) to 2^53 - 1. */
export function parseSequenceIdRange(text: string): SequenceIdRange {
  const parts = text.split(':');
  const bad = (why: string): UsageError =>
    new UsageError(`--sequence-id-range: expected start[:end] ${why}, got "${text}"`);
  if (parts.length > 2 || !parts.every((p) => ID.test(p))) {
    throw bad('with whole numbers');
  }
  const start = Number(parts[0]);
  const end = parts[1] === undefined ? MAX_SEQUENCE_ID : Number(parts[1]);
  if (start < 1 || end > MAX_SEQUENCE_ID) throw bad(`within 1..${MAX_SEQUENCE_ID}`);
  if (end < start) throw bad('with end >= start');
  return { start, end };
}

/** The lengths a sequence may have: [min, max], at least one request. */
export function lengthBounds(o: Pick<SequenceOptions, 'length' | 'lengthVariation'>): {
  min: number;
  max: number;
} {
  const spread = (o.length * o.lengthVariation) / 100;
  return {
    min: Math.max(1, Math.round(o.length - spread)),
    max: Math.max(1, Math.round(o.length + spread)),
  };
}
