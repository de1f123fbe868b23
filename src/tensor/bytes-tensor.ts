// BYTES tensors as lists of elements: encoding a list, viewing, counting and checking the elements
// of a buffer, with the request-facing errors. The layout itself and its walker are bytes-layout.ts.

import { Buffer } from 'node:buffer';
import { fail } from '../errors.js';
import { BYTES_PREFIX as PREFIX, BytesWalker, putBytesLength } from './bytes-layout.js';
import { forShape, labelPrefix, type TensorLabel } from './tensor-label.js';

/** Bytes `encodeBytesTensor` needs: 4 per element plus each element's (UTF-8) length. */
export function bytesTensorByteLength(elements: readonly (Uint8Array | string)[]): number {
  let n = 0;
  for (const e of elements) n += PREFIX + (typeof e === 'string' ? Buffer.byteLength(e) : e.length);
  return n;
}

/**
 * Lays out elements in the BYTES layout. Strings are written as UTF-8 (a lone surrogate becomes
 * U+FFFD, as everywhere in Node). An element longer than 2^32-1 bytes cannot be framed.
 */
export function encodeBytesTensor(elements: readonly (Uint8Array | string)[]): Uint8Array {
  const out = Buffer.allocUnsafe(bytesTensorByteLength(elements));
  let at = 0;
  for (const e of elements) {
    const n = typeof e === 'string' ? out.write(e, at + PREFIX, 'utf8') : e.length;
    if (n > 0xffffffff)
      throw fail('BAD_TENSOR_DATA', `a BYTES element of ${n} bytes exceeds 2^32-1`);
    putBytesLength(out, at, n);
    if (typeof e !== 'string') out.set(e, at + PREFIX);
    at += PREFIX + n;
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Writes one element (prefix + UTF-8 of `s`) into `target` at `at`; returns the offset after it.
 * `view` is a Buffer over the same memory as `target` (made once per tensor by the caller), and the
 * caller has sized `target` with `Buffer.byteLength`, so the write always fits.
 */
export function writeBytesString(target: Buffer, at: number, s: string): number {
  const n = target.write(s, at + PREFIX, 'utf8');
  putBytesLength(target, at, n);
  return at + PREFIX + n;
}

function brokenMessage(w: BytesWalker): string {
  return w.broken === 'prefix'
    ? `element ${w.count} at byte ${w.end} has an incomplete length prefix: expected 4 bytes, ` +
        `${w.detail} remain`
    : `element ${w.count} at byte ${w.end} declares ${w.detail} bytes, more than the ` +
        `${w.remaining - PREFIX} that remain`;
}

/** Number of elements in a well-formed BYTES buffer; BAD_TENSOR_DATA if it is not well formed. */
export function countBytesElements(bytes: Uint8Array, label?: TensorLabel): number {
  const w = new BytesWalker(bytes);
  w.skip(Infinity);
  if (w.broken !== 'none') {
    throw fail('BAD_TENSOR_DATA', `${labelPrefix(label)}BYTES data ${brokenMessage(w)}`);
  }
  return w.count;
}

/** Views (no copies) of each element of a well-formed BYTES buffer. */
export function bytesElements(bytes: Uint8Array, label?: TensorLabel): Uint8Array[] {
  const out: Uint8Array[] = [];
  const w = new BytesWalker(bytes);
  while (w.next()) out.push(bytes.subarray(w.start, w.start + w.length));
  if (w.broken !== 'none') {
    throw fail('BAD_TENSOR_DATA', `${labelPrefix(label)}BYTES data ${brokenMessage(w)}`);
  }
  return out;
}

/**
 * Checks that `bytes` holds exactly `count` well-formed elements and nothing else. NUL bytes inside
 * an element are data, not terminators. Errors say which element broke, or both counts.
 */
export function checkBytesTensor(bytes: Uint8Array, count: number, label?: TensorLabel): void {
  const w = new BytesWalker(bytes);
  w.skip(count);
  const head = `${labelPrefix(label)}expected ${count} BYTES elements${forShape(label)}`;
  if (w.broken !== 'none') throw fail('BAD_TENSOR_DATA', `${head}, but ${brokenMessage(w)}`);
  if (w.count < count) throw fail('BAD_TENSOR_DATA', `${head}, got ${w.count}`);
  if (w.remaining === 0) return;
  // Too many: report the real count if the rest is well formed, else how many bytes are left over.
  const extra = w.remaining;
  w.skip(Infinity);
  throw fail(
    'BAD_TENSOR_DATA',
    w.broken === 'none'
      ? `${head}, got ${w.count}`
      : `${head}, but ${extra} bytes follow the ${count} expected elements`,
  );
}
