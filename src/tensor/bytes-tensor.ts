// The BYTES tensor layout of the binary tensor extension (and of ORT string tensors once split):
// each element is a 4-byte little-endian unsigned length followed by that many bytes, no padding.
// Encoding a list, walking a buffer, counting and checking elements all live here.

import { Buffer } from 'node:buffer';
import { fail } from '../errors.js';
import { forShape, labelPrefix, type TensorLabel } from './tensor-label.js';

const PREFIX = 4;

/** The little-endian u32 at `at`; the caller has checked 4 bytes are there. */
function lengthAt(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at] as number) |
      ((bytes[at + 1] as number) << 8) |
      ((bytes[at + 2] as number) << 16) |
      ((bytes[at + 3] as number) << 24)) >>>
    0
  );
}

function putLength(bytes: Uint8Array, at: number, n: number): void {
  bytes[at] = n & 0xff;
  bytes[at + 1] = (n >>> 8) & 0xff;
  bytes[at + 2] = (n >>> 16) & 0xff;
  bytes[at + 3] = (n >>> 24) & 0xff;
}

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
    putLength(out, at, n);
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
  putLength(target, at, n);
  return at + PREFIX + n;
}

/** Where a walk over the elements stopped, and why. */
interface Walk {
  count: number;
  end: number;
  broken: 'none' | 'prefix' | 'overrun';
  /** For 'prefix': bytes left; for 'overrun': the element's declared length. */
  detail: number;
}

/**
 * Walks elements starting at `at`, at most `limit` of them; returns how many were whole and where
 * the walk stopped. Stops early (without throwing) at a truncated prefix or an element that runs
 * past the end; `broken` says which.
 */
function walk(bytes: Uint8Array, at: number, limit: number): Walk {
  let count = 0;
  while (at < bytes.length && count < limit) {
    if (bytes.length - at < PREFIX) {
      return { count, end: at, broken: 'prefix', detail: bytes.length - at };
    }
    const n = lengthAt(bytes, at);
    // Compare against what is left rather than computing at + n: n may be 0xFFFFFFFF.
    if (n > bytes.length - at - PREFIX) return { count, end: at, broken: 'overrun', detail: n };
    at += PREFIX + n;
    count++;
  }
  return { count, end: at, broken: 'none', detail: 0 };
}

function brokenMessage(bytes: Uint8Array, w: Walk): string {
  return w.broken === 'prefix'
    ? `element ${w.count} at byte ${w.end} has an incomplete length prefix: expected 4 bytes, ` +
        `${w.detail} remain`
    : `element ${w.count} at byte ${w.end} declares ${w.detail} bytes, more than the ` +
        `${bytes.length - w.end - PREFIX} that remain`;
}

/** Number of elements in a well-formed BYTES buffer; BAD_TENSOR_DATA if it is not well formed. */
export function countBytesElements(bytes: Uint8Array, label?: TensorLabel): number {
  const w = walk(bytes, 0, Infinity);
  if (w.broken !== 'none') {
    throw fail('BAD_TENSOR_DATA', `${labelPrefix(label)}BYTES data ${brokenMessage(bytes, w)}`);
  }
  return w.count;
}

/** Views (no copies) of each element of a well-formed BYTES buffer. */
export function bytesElements(bytes: Uint8Array, label?: TensorLabel): Uint8Array[] {
  const out: Uint8Array[] = [];
  countBytesElements(bytes, label); // validates first so the loop below cannot run off the end
  for (let at = 0; at < bytes.length;) {
    const n = lengthAt(bytes, at);
    out.push(bytes.subarray(at + PREFIX, at + PREFIX + n));
    at += PREFIX + n;
  }
  return out;
}

/**
 * Checks that `bytes` holds exactly `count` well-formed elements and nothing else. NUL bytes inside
 * an element are data, not terminators. Errors say which element broke, or both counts.
 */
export function checkBytesTensor(bytes: Uint8Array, count: number, label?: TensorLabel): void {
  const w = walk(bytes, 0, count);
  const head = `${labelPrefix(label)}expected ${count} BYTES elements${forShape(label)}`;
  if (w.broken !== 'none') throw fail('BAD_TENSOR_DATA', `${head}, but ${brokenMessage(bytes, w)}`);
  if (w.count < count) throw fail('BAD_TENSOR_DATA', `${head}, got ${w.count}`);
  if (w.end === bytes.length) return;
  // Too many: report the real count if the rest is well formed, else how many bytes are left over.
  const rest = walk(bytes, w.end, Infinity);
  throw fail(
    'BAD_TENSOR_DATA',
    rest.broken === 'none'
      ? `${head}, got ${count + rest.count}`
      : `${head}, but ${bytes.length - w.end} bytes follow the ${count} expected elements`,
  );
}
