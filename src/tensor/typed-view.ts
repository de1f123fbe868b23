// Typed-array views over little-endian tensor bytes. Wire and shared-memory tensors are little-endian;
// a TypedArray uses the host's order and needs its offset aligned to the element size. On a
// little-endian host with an aligned buffer (the normal case) the view is zero-copy; otherwise the
// bytes go through an aligned copy, byte-swapped on a big-endian host.

import type { DatatypeInfo, NumericView, ViewConstructor } from './datatypes.js';

export const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The datatype's TypedArray constructor with one construct signature: the table's field is a union
 * of ten constructors, which TypeScript cannot call through a single generic signature. Throws for
 * BYTES.
 */
export function numericConstructor(info: DatatypeInfo): ViewConstructor<NumericView> {
  if (info.array === null) throw new Error(`${info.name} has no fixed-size element view`);
  return info.array;
}

/** Reverses each `size`-byte group of `bytes` in place (little- <-> big-endian). */
function swapInPlace(bytes: Uint8Array, size: number): void {
  if (size === 1) return;
  for (let at = 0; at + size <= bytes.length; at += size) {
    for (let i = 0, j = at + size - 1, k = at; i < size >> 1; i++, j--, k++) {
      const t = bytes[k] as number;
      bytes[k] = bytes[j] as number;
      bytes[j] = t;
    }
  }
}

function canViewInPlace(bytes: Uint8Array, size: number): boolean {
  return HOST_LITTLE_ENDIAN && bytes.byteOffset % size === 0;
}

/**
 * Elements of `bytes` (little-endian) as a `ctor` array. Zero-copy when possible, so the caller must
 * not write through the result. `bytes.length` must be a multiple of the element size.
 */
export function readLittleEndian<T extends ArrayBufferView>(
  bytes: Uint8Array,
  ctor: ViewConstructor<T>,
): T {
  const size = ctor.BYTES_PER_ELEMENT;
  const n = bytes.length / size;
  if (canViewInPlace(bytes, size)) return new ctor(bytes.buffer, bytes.byteOffset, n);
  const copy = bytes.slice(); // a fresh ArrayBuffer, offset 0: aligned for every element size
  if (!HOST_LITTLE_ENDIAN) swapInPlace(copy, size);
  return new ctor(copy.buffer, 0, n);
}

/**
 * A `ctor` array to fill with `n` elements that end up little-endian in `target`. When it is not a
 * view of `target` itself, `finishWrite` copies it there.
 */
export function writableLittleEndian<T extends ArrayBufferView>(
  target: Uint8Array,
  ctor: ViewConstructor<T>,
  n: number,
): T {
  const size = ctor.BYTES_PER_ELEMENT;
  if (canViewInPlace(target, size)) return new ctor(target.buffer, target.byteOffset, n);
  return new ctor(new ArrayBuffer(n * size), 0, n);
}

/**
 * Completes a `writableLittleEndian` write: copies (and on big-endian hosts swaps each element of
 * the view's own size) if the view was scratch memory.
 */
export function finishWrite(target: Uint8Array, view: NumericView): void {
  if (view.buffer === target.buffer && view.byteOffset === target.byteOffset) return;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (!HOST_LITTLE_ENDIAN) swapInPlace(bytes, view.BYTES_PER_ELEMENT);
  target.set(bytes);
}
