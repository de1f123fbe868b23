// A tensor as validate holds it on the main thread: datatype, full shape (batch dim included) and
// its elements, either a TypedArray of the datatype table's view or, for BYTES, strings (what
// onnxruntime-node takes and returns for 'string' tensors).

import { BytesWalker } from '../tensor/bytes-layout.js';
import {
  DATATYPE_TABLE,
  numericArray,
  type Datatype,
  type NumericView,
} from '../tensor/datatypes.js';
import { bf16BitsToNumber, halfBitsToNumber } from '../tensor/half.js';

export interface HostTensor {
  readonly datatype: Datatype;
  readonly dims: readonly number[];
  readonly data: NumericView | readonly string[];
}

/**
 * The elements as float64 numbers, for the agreement metrics: FP16/BF16 decoded from their bit
 * patterns, 64-bit integers through Number (exact up to 2^53, which is enough to compare them),
 * BOOL as 0/1. Undefined for BYTES.
 */
export function asNumbers(t: HostTensor): Float64Array | undefined {
  const d = t.data;
  if (Array.isArray(d)) return undefined;
  const view = d as NumericView;
  const out = new Float64Array(view.length);
  switch (t.datatype) {
    case 'FP16':
      for (let i = 0; i < view.length; i++) out[i] = halfBitsToNumber(view[i] as number);
      return out;
    case 'BF16':
      for (let i = 0; i < view.length; i++) out[i] = bf16BitsToNumber(view[i] as number);
      return out;
    case 'INT64':
    case 'UINT64':
      for (let i = 0; i < view.length; i++) out[i] = Number(view[i] as bigint);
      return out;
    case 'BOOL':
    case 'UINT8':
    case 'UINT16':
    case 'UINT32':
    case 'INT8':
    case 'INT16':
    case 'INT32':
    case 'FP32':
    case 'FP64':
      for (let i = 0; i < view.length; i++) out[i] = Number(view[i]);
      return out;
    case 'BYTES':
      return undefined;
  }
}

/** Floating-point datatypes: the ones cosine similarity and classifier top-k apply to. */
export function isFloat(d: Datatype): boolean {
  return d === 'FP16' || d === 'FP32' || d === 'FP64' || d === 'BF16';
}

/** A tensor's wire bytes (row-major, little-endian; BYTES length-prefixed) as a HostTensor, copied. */
export function hostTensorFromBytes(
  datatype: Datatype,
  dims: readonly number[],
  bytes: Uint8Array,
): HostTensor {
  const info = DATATYPE_TABLE[datatype];
  if (info.name === 'BYTES') {
    const out: string[] = [];
    const w = new BytesWalker(bytes);
    const decoder = new TextDecoder();
    while (w.next()) out.push(decoder.decode(bytes.subarray(w.start, w.start + w.length)));
    return { datatype, dims, data: out };
  }
  // A copy of its own, so the view is aligned whatever the bytes' offset was.
  const own = bytes.slice();
  const data = new (numericArray(info.name))(own.buffer, 0, own.byteLength / info.byteSize);
  return { datatype, dims, data };
}
