// Views over tensor bytes: a `Uint8Array` or the datatype's TypedArray for a `TensorDescriptor` (or
// any buffer region), with the bounds and alignment checks that make a bad descriptor an error
// instead of a RangeError thrown from deep inside a worker.

import { datatypeInfo } from '../tensor/datatypes.js';
import type { Datatype, NumericView, ViewConstructor } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import { elementCount, shapeText } from '../tensor/shape.js';
import type { TensorDescriptor } from '../tensor/tensor.js';

function checkRegion(buffer: ArrayBufferLike, byteOffset: number, byteLength: number): void {
  if (
    !Number.isSafeInteger(byteOffset) ||
    !Number.isSafeInteger(byteLength) ||
    byteOffset < 0 ||
    byteLength < 0 ||
    byteOffset + byteLength > buffer.byteLength
  ) {
    throw fail(
      'INTERNAL',
      `tensor region [${byteOffset}, +${byteLength}) is outside its ${buffer.byteLength}-byte buffer`,
    );
  }
}

/** The descriptor's bytes, as a view (no copy). */
export function byteView(d: TensorDescriptor): Uint8Array {
  checkRegion(d.buffer, d.byteOffset, d.byteLength);
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/**
 * A TypedArray of `datatype` over `[byteOffset, byteOffset + byteLength)` of `buffer` (no copy).
 * FP16/BF16 come back as Uint16Array bit patterns and BOOL as Uint8Array, as the datatype table says.
 * BYTES has no TypedArray: asking for one is a programming error.
 */
export function typedViewOf(
  buffer: ArrayBufferLike,
  byteOffset: number,
  byteLength: number,
  datatype: Datatype,
): NumericView {
  const info = datatypeInfo(datatype);
  if (info.array === null) {
    throw fail('INTERNAL', `${datatype} tensors have no TypedArray view`);
  }
  checkRegion(buffer, byteOffset, byteLength);
  if (byteOffset % info.byteSize !== 0) {
    throw fail(
      'INTERNAL',
      `${datatype} view: expected a byte offset aligned to ${info.byteSize}, got ${byteOffset}`,
    );
  }
  if (byteLength % info.byteSize !== 0) {
    throw fail(
      'BYTE_SIZE_MISMATCH',
      `${datatype} tensor: expected a multiple of ${info.byteSize} bytes, got ${byteLength}`,
    );
  }
  // One construct signature: through the table's union of constructors, TS would ask for the
  // narrowest buffer type (ArrayBuffer), while every TypedArray takes a SharedArrayBuffer.
  const ctor: ViewConstructor<NumericView> = info.array;
  return new ctor(buffer, byteOffset, byteLength / info.byteSize);
}

/**
 * The descriptor's elements as its datatype's TypedArray, checked against its shape: a view whose
 * length differs from the shape's element count is BYTE_SIZE_MISMATCH.
 */
export function typedView(d: TensorDescriptor): NumericView {
  const view = typedViewOf(d.buffer, d.byteOffset, d.byteLength, d.datatype);
  const expected = elementCount(d.shape);
  if (view.length !== expected) {
    throw fail(
      'BYTE_SIZE_MISMATCH',
      `tensor "${d.name}": shape ${shapeText(d.shape)} of ${d.datatype} needs ` +
        `${expected * datatypeInfo(d.datatype).byteSize} bytes, got ${d.byteLength}`,
    );
  }
  return view;
}
