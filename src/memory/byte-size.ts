// Checked byte arithmetic for tensors in shared memory: byte sizes from shapes, slot alignment and
// sums, each refusing any result that is not a safe integer (a double past 2^53 silently rounds).

import { datatypeInfo } from '../tensor/datatypes.js';
import type { Datatype } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import { shapeText } from '../tensor/shape.js';

/**
 * Every slot in a block starts on a 64-byte boundary. 8 bytes would already make every typed-array
 * view legal (the widest element is 8 bytes); 64 also keeps two slots off one cache line, so a
 * worker reading one input never shares a line with the main thread writing the next request.
 */
export const SLOT_ALIGNMENT = 64;

const MAX = Number.MAX_SAFE_INTEGER;

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/**
 * Bytes of a fixed-size tensor (every datatype but BYTES) of `shape`. Throws BAD_SHAPE when a dim is
 * not a safe integer >= 0 or the product does not fit a safe integer.
 */
export function fixedByteLength(datatype: Datatype, shape: readonly number[]): number {
  const size = datatypeInfo(datatype).byteSize;
  if (size === 0) {
    throw fail(
      'INTERNAL',
      'BYTES tensors have no fixed byte size; pass the byte length explicitly',
    );
  }
  // A zero dim makes the tensor empty whatever the other dims are, so check for it first: otherwise
  // [2^40, 2^40, 0] would be reported as an overflow.
  for (const d of shape) {
    if (!isCount(d)) {
      throw fail('BAD_SHAPE', `shape ${shapeText(shape)}: expected dims >= 0, got ${d}`);
    }
  }
  if (shape.includes(0)) return 0;
  let bytes = size;
  for (const d of shape) {
    // Exact while the true product is <= 2^53 - 1; past that the rounded product is >= 2^53, so
    // the comparison still catches it (no division, whose rounding could let one through).
    bytes *= d;
    if (bytes > MAX) {
      throw fail(
        'BAD_SHAPE',
        `shape ${shapeText(shape)} of ${datatype}: expected at most ${MAX} bytes, got more`,
      );
    }
  }
  return bytes;
}

/** `n` rounded up to a multiple of `alignment` (a power of two), checked to stay a safe integer. */
export function alignUp(n: number, alignment: number = SLOT_ALIGNMENT): number {
  if (!isCount(n)) throw fail('INTERNAL', `alignUp: expected a byte count, got ${n}`);
  const rem = n % alignment;
  return rem === 0 ? n : checkedAdd(n, alignment - rem);
}

/** a + b for byte counts; throws INTERNAL if either is not a count or the sum is not safe. */
export function checkedAdd(a: number, b: number): number {
  if (!isCount(a) || !isCount(b)) {
    throw fail('INTERNAL', `byte arithmetic: expected two byte counts, got ${a} and ${b}`);
  }
  if (a > MAX - b) {
    throw fail('BAD_REQUEST', `byte arithmetic: ${a} + ${b} exceeds ${MAX}`);
  }
  return a + b;
}

/**
 * Offsets of consecutive slots of the given byte lengths, each on a SLOT_ALIGNMENT boundary, and the
 * total bytes they span. Pure arithmetic, shared by shared-memory blocks and the worker's local
 * scratch buffer so both lay tensors out the same way.
 */
export function slotOffsets(byteLengths: readonly number[]): {
  readonly offsets: readonly number[];
  readonly totalBytes: number;
} {
  const offsets: number[] = [];
  let end = 0;
  for (const len of byteLengths) {
    if (!isCount(len)) throw fail('INTERNAL', `slot layout: expected a byte length, got ${len}`);
    const start = alignUp(end);
    offsets.push(start);
    end = checkedAdd(start, len);
  }
  return { offsets, totalBytes: end };
}
