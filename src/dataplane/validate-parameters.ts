// The request and output parameters validation reads, in Triton's rules and words: a sequence
// model's `sequence_id` / `sequence_start` / `sequence_end` (refused for any other model), integer
// parameters such as `priority` and `timeout`, and boolean ones such as `binary_data`.

import { fail } from '../errors.js';
import type { Parameters } from '../protocol/inference-request.js';
import type { ModelSignature } from '../repository/model-signature.js';
import type { SequenceFields } from '../scheduler/validated-request.js';

/** Request parameters Triton reserves for sequences; refused by a model without sequence batching. */
const SEQUENCE_PARAMETERS = ['sequence_id', 'sequence_start', 'sequence_end'] as const;

/** The request's sequence fields for a sequence model; undefined for any other model. */
export function requestSequence(
  sig: ModelSignature,
  params: Parameters,
): SequenceFields | undefined {
  if (sig.sequence) return sequenceFields(sig, params);
  for (const key of SEQUENCE_PARAMETERS) {
    if (Object.hasOwn(params, key)) {
      throw fail(
        'UNSUPPORTED',
        `parameter '${key}' needs sequence batching, which model '${sig.name}' does not have`,
      );
    }
  }
  return undefined;
}

/**
 * `sequence_id` (a uint64 as a safe integer, or a string; 0 and "" mean none, as in Triton),
 * `sequence_start` and `sequence_end` for a sequence model, which requires a correlation id.
 */
function sequenceFields(sig: ModelSignature, params: Parameters): SequenceFields {
  const raw = Object.hasOwn(params, 'sequence_id') ? params['sequence_id'] : 0;
  if (!(
    typeof raw === 'string' ||
    (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0)
  )) {
    throw fail(
      'BAD_PARAMETER',
      `parameter 'sequence_id' must be an integer >= 0 (at most ${Number.MAX_SAFE_INTEGER}) or a string, got ${JSON.stringify(raw)}`,
    );
  }
  if (raw === 0 || raw === '') {
    throw fail(
      'SEQUENCE_ID_REQUIRED',
      `inference request to model '${sig.name}' must specify a non-zero or non-empty correlation ID`,
    );
  }
  return {
    id: raw,
    start: boolParam(params, 'sequence_start', false),
    end: boolParam(params, 'sequence_end', false),
  };
}

export function nonNegativeInt(params: Parameters, key: string): number {
  if (!Object.hasOwn(params, key)) return 0;
  const v = params[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw fail(
      'BAD_PARAMETER',
      `parameter '${key}' must be an integer >= 0, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

export function boolParam(params: Parameters, key: string, fallback: boolean): boolean {
  if (!Object.hasOwn(params, key)) return fallback;
  const v = params[key];
  if (typeof v !== 'boolean') {
    throw fail('BAD_PARAMETER', `parameter '${key}' must be a boolean, got ${JSON.stringify(v)}`);
  }
  return v;
}
