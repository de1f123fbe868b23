// The wire rules of Triton's sequence fields (`sequence_id`, `sequence_start`, `sequence_end`) in a
// request's `parameters`: their types and the range of an integer id, checked by every transport's
// decoder, and the WebSocket frame fields folded into the same map. Whether a model takes sequences,
// and what an id of 0 or "" means, is request validation's business, not this module's.

import { fail } from '../errors.js';
import type { ParameterValue, Parameters } from './inference-request.js';
import { jsonKind } from './parameters.js';

export const SEQUENCE_KEYS = ['sequence_id', 'sequence_start', 'sequence_end'] as const;
export type SequenceKey = (typeof SEQUENCE_KEYS)[number];

/**
 * The largest integer `sequence_id` carried. Triton's is a uint64, but a parameter value here is a
 * JS number, exact only up to 2^53-1; a larger id is refused (not rounded, not turned into a string:
 * a string id is a different id to Triton, matched against a TYPE_STRING correlation control).
 */
export const MAX_SEQUENCE_ID = Number.MAX_SAFE_INTEGER;

/** Describes a value as it arrived, for messages; each transport has its own wording of types. */
export type Describe = (v: unknown) => string;

/**
 * One sequence value, checked: `sequence_id` a string or an integer in [0, 2^53-1], the other two
 * booleans. `where` names it in messages ("request parameter", "frame field").
 */
export function sequenceValue(
  key: SequenceKey,
  v: unknown,
  where: string,
  describe: Describe = jsonKind,
): ParameterValue {
  if (key !== 'sequence_id') {
    if (typeof v === 'boolean') return v;
    throw fail('BAD_PARAMETER', `${where} '${key}' must be a boolean, got ${describe(v)}`);
  }
  if (typeof v === 'string') return v;
  // A bigint is an exact 64-bit integer (FlatBuffers' ulong); a number past 2^53-1 has already been
  // rounded by JSON.parse or msgpackr (int64AsType 'number'), so its digits may not be those sent.
  const exact = typeof v === 'bigint';
  if ((typeof v === 'number' && Number.isInteger(v)) || exact) {
    if (v >= 0 && v <= MAX_SEQUENCE_ID) return Number(v);
    if (v > MAX_SEQUENCE_ID) {
      throw fail(
        'BAD_PARAMETER',
        `${where} 'sequence_id' must be at most 2^53-1 (${MAX_SEQUENCE_ID}), the largest integer ` +
          `id carried exactly; use a smaller id or a string id, got ${describe(v)}` +
          (exact ? '' : ' (rounded, if more digits were sent)'),
      );
    }
  }
  throw fail(
    'BAD_PARAMETER',
    `${where} 'sequence_id' must be an integer >= 0 or a string, got ${describe(v)}`,
  );
}

/** Checks the sequence keys of request-level parameters (decoded by any transport); returns them. */
export function checkSequenceParameters(params: Parameters): Parameters {
  for (const key of SEQUENCE_KEYS) {
    if (Object.hasOwn(params, key)) sequenceValue(key, params[key], 'request parameter');
  }
  return params;
}

/** The WebSocket frame fields as read from a frame; `undefined`: the field is absent. */
export type SequenceFields = Readonly<Partial<Record<SequenceKey, unknown>>>;

/**
 * Request parameters with the frame's sequence fields added, each checked (the parameters' own
 * sequence keys too). A key set both as a frame field and in `parameters` is refused: neither
 * silently wins. Returns `params` itself when the frame sets none.
 */
export function withSequenceFields(
  params: Parameters,
  fields: SequenceFields,
  describe: Describe,
): Parameters {
  checkSequenceParameters(params);
  // Every WebSocket infer frame comes through here: no intermediate arrays, and the copy of the
  // map (null-prototype, like readParameters' output) is made only when the frame sets a field.
  let out: Record<string, ParameterValue> | undefined;
  for (const key of SEQUENCE_KEYS) {
    const v = fields[key];
    if (v === undefined) continue;
    if (Object.hasOwn(params, key)) {
      throw fail(
        'BAD_PARAMETER',
        `frame field '${key}' and request parameter '${key}' are both set; send it once, ` +
          'preferably as the frame field',
      );
    }
    out ??= Object.assign(Object.create(null) as Record<string, ParameterValue>, params);
    out[key] = sequenceValue(key, v, 'frame field', describe);
  }
  return out === undefined ? params : Object.freeze(out);
}
