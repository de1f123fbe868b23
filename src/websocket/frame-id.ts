// The request id of both encodings: what a usable id is (a string of 1-256 UTF-8 bytes, or a number
// whose value is an integer 0..2^53-1), how one that arrived is read, what makes two ids the same,
// and the BAD_ID refusal naming what arrived instead.

import { Buffer } from 'node:buffer';
import { fail, type InferenceServerError } from '../errors.js';
import { MAX_ID_BYTES, MAX_INTEGER_ID } from './ws-protocol.js';

/** A client-chosen request id, unique among the socket's requests in flight. */
export interface FrameId {
  /**
   * The id's value, which decides whether two ids are the same: the integer 5, the uint 64 5 and
   * the float 5.0 are one id; the string "5" is another.
   */
  readonly key: string | number;
  /**
   * The id's msgpack bytes exactly as they arrived (a copy, never a view of the frame), echoed in
   * every answer so the client reads back the very value and type it sent. Absent for ids that
   * did not arrive in msgpack; the msgpack writer then writes `key` in its smallest format.
   */
  readonly msgpack?: Uint8Array;
}

/** What a frame's `id` turned out to be. `got` describes an unusable one without echoing it. */
export type IdReading =
  | { readonly kind: 'absent' }
  | { readonly kind: 'valid'; readonly id: FrameId }
  | { readonly kind: 'invalid'; readonly got: string };

export const ABSENT_ID: IdReading = Object.freeze({ kind: 'absent' });

/** An unusable id; `got` says what arrived ("an empty string", "a bin"). */
export function invalidId(got: string): IdReading {
  return { kind: 'invalid', got };
}

/** A string id, its length counted in UTF-8 bytes (the unit the limit is stated in). */
export function readStringId(s: string, msgpack?: Uint8Array): IdReading {
  const bytes = Buffer.byteLength(s);
  if (bytes === 0) return invalidId('an empty string');
  if (bytes > MAX_ID_BYTES) return invalidId(`a string of ${bytes} bytes`);
  return { kind: 'valid', id: msgpack === undefined ? { key: s } : { key: s, msgpack } };
}

/**
 * A number id from any msgpack integer or float format, named by `format` for the message
 * ("uint 64", "float 64"). 64-bit integers arrive as bigints, so 2^53 is refused rather than
 * rounded into range.
 */
export function readNumberId(
  value: number | bigint,
  format: string,
  msgpack: Uint8Array,
): IdReading {
  if (typeof value === 'number' && !Number.isInteger(value)) {
    return invalidId(`the ${format} ${value}, which is not an integer`);
  }
  if (value < 0) return invalidId(`the ${format} ${value}, below 0`);
  if (value > MAX_INTEGER_ID) return invalidId(`the ${format} ${value}, above 2^53-1`);
  // + 0 turns a float -0 into the key 0: one id, whichever zero was sent.
  return { kind: 'valid', id: { key: Number(value) + 0, msgpack } };
}

/** An id for messages: a string in quotes, a number as its digits. */
export function showId(id: FrameId): string {
  return JSON.stringify(id.key);
}

/**
 * The refusal of a frame without a usable id. It is answered under a nil id (msgpack) or no id
 * (FlatBuffers): the frame is not run, and the error ends none of the client's requests.
 */
export function badIdError(reading: IdReading, numbersAllowed: boolean): InferenceServerError {
  const got = reading.kind === 'invalid' ? reading.got : "no 'id'";
  return fail(
    'BAD_ID',
    `frame 'id' must be a string of 1-${MAX_ID_BYTES} bytes` +
      `${numbersAllowed ? ' or an integer 0..2^53-1' : ''}, got ${got}; ` +
      'the frame was not run, and this error ends none of the requests in flight',
  );
}
