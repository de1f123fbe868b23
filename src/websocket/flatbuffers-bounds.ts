// Bounds checks for FlatBuffers frames. The FlatBuffers runtime does none (reads past the end yield
// zeros, and a vector view is built from whatever offset and length the buffer claims), so every
// vector a decoder reads is checked against the frame first, and every count against what the
// frame's size could hold.

import type { ByteBuffer } from 'flatbuffers';
import { fail } from '../errors.js';

/**
 * Checks a `[ubyte]` field's start and length against the frame (`field`: its vtable offset),
 * reading them through the ByteBuffer exactly as the generated dataArray() does, before it is
 * called: dataArray() builds a Uint8Array over the underlying ArrayBuffer from whatever the frame
 * claims, so a cut or damaged frame would throw a RangeError there (answered INTERNAL) or, inside a
 * larger buffer, view bytes that are not this frame's. Refused as the msgpack codec refuses a
 * truncated frame. `what` names the vector ("input 'X' data").
 */
export function checkByteVector(
  t: { readonly bb: ByteBuffer | null; readonly bb_pos: number },
  fieldOffset: number,
  what: string,
  frame: Uint8Array,
): void {
  const bb = t.bb as ByteBuffer; // set by the accessor that returned `t`
  const field = bb.__offset(t.bb_pos, fieldOffset);
  if (field === 0) return; // no vector
  const lengthAt = t.bb_pos + field + bb.readInt32(t.bb_pos + field); // its length prefix
  const start = lengthAt + 4;
  const length = bb.readInt32(lengthAt); // reads past the end are 0, never a throw
  if (lengthAt < 0 || length < 0 || start + length > frame.byteLength) {
    throw fail(
      'BAD_REQUEST',
      `undecodable frame: ${what} lies outside the frame (${length} bytes at byte ` +
        `${start} of a ${frame.byteLength}-byte frame)`,
    );
  }
}

/** A vector of `count` entries of `size` bytes cannot be longer than the frame. */
export function checkCount(count: number, size: number, frame: Uint8Array, what: string): void {
  if (count * size > frame.byteLength) {
    throw fail(
      'BAD_REQUEST',
      `${what} claims ${count} entries, more than a ${frame.byteLength}-byte frame can hold`,
    );
  }
}
