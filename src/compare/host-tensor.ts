// A tensor as validate holds it on the main thread: datatype, full shape (batch dim included) and
// its elements, either a TypedArray of the datatype table's view or, for BYTES, strings (what
// onnxruntime-node takes and returns for 'string' tensors).

import type { Datatype, NumericView } from '../tensor/datatypes.js';
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
