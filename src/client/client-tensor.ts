// Typed tensors for the client: a type-level map from datatype to its TypedArray (so a FP32 tensor's
// `data` is a Float32Array), and the conversions between a tensor and its wire bytes (raw
// little-endian row-major; BYTES as 4-byte length-prefixed elements).
//
// FP16 and BF16 travel as their 16-bit patterns in a Uint16Array, as in the server. Hosts are
// assumed little-endian (every platform Node ships for is).

import { DATATYPE_TABLE, type Datatype, type NumericArrayTypes } from '../tensor/datatypes.js';
import { bytesElements, encodeBytesTensor } from '../tensor/bytes-tensor.js';
import {
  bf16BitsToNumber,
  halfBitsToNumber,
  numberToBf16Bits,
  numberToHalfBits,
} from '../tensor/half.js';

/** What a client tensor's data is, per datatype: the datatype table's TypedArrays, and for BYTES a list. */
export interface TypedArrayMap extends NumericArrayTypes {
  /** Elements as UTF-8 strings or raw bytes on the way in; raw bytes on the way out. */
  BYTES: (string | Uint8Array)[];
}

export interface Tensor<D extends Datatype = Datatype> {
  readonly name: string;
  readonly datatype: D;
  readonly shape: readonly number[];
  readonly data: TypedArrayMap[D];
}

/** Builds a tensor with its data type checked against the datatype at compile time. */
export function tensor<D extends Datatype>(
  name: string,
  datatype: D,
  shape: readonly number[],
  data: TypedArrayMap[D],
): Tensor<D> {
  return { name, datatype, shape, data };
}

/** The tensor's wire bytes: a view of the typed array's memory, or the BYTES layout (a copy). */
export function tensorBytes(t: Tensor): Uint8Array {
  const data = t.data;
  if (Array.isArray(data)) return encodeBytesTensor(data);
  const view = data as ArrayBufferView;
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/**
 * A tensor over received bytes. Numeric data is viewed in place when the bytes are aligned for the
 * element size, copied once otherwise (msgpack `bin` payloads land at arbitrary offsets).
 */
export function tensorFromBytes(
  name: string,
  datatype: Datatype,
  shape: readonly number[],
  bytes: Uint8Array,
): Tensor {
  const info = DATATYPE_TABLE[datatype];
  if (info.array === null) {
    return { name, datatype, shape, data: bytesElements(bytes) };
  }
  const size = info.byteSize;
  // Uint8Array's slice copies; a Buffer's (msgpackr hands out Buffers) would return a view.
  const source = bytes.byteOffset % size === 0 ? bytes : Uint8Array.prototype.slice.call(bytes);
  // The buffer is an ArrayBuffer (a received frame), never shared memory; the union of typed-array
  // constructors only accepts the narrower type.
  const data = new info.array(
    source.buffer as ArrayBuffer,
    source.byteOffset,
    source.byteLength / size,
  );
  return { name, datatype, shape, data } as Tensor;
}

/** Element values for a JSON request body (64-bit integers as numbers: exact up to 2^53). */
export function jsonValues(t: Tensor): unknown[] {
  const data = t.data;
  if (Array.isArray(data)) {
    return data.map((e) => (typeof e === 'string' ? e : Buffer.from(e).toString('utf8')));
  }
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    return Array.from(data, (v) => Number(v));
  }
  if (t.datatype === 'BOOL') return Array.from(data as Uint8Array, (v) => v !== 0);
  if (t.datatype === 'FP16') return Array.from(data as Uint16Array, halfBitsToNumber);
  if (t.datatype === 'BF16') return Array.from(data as Uint16Array, bf16BitsToNumber);
  return Array.from(data as ArrayLike<number>);
}

/** A tensor from a JSON response's flat `data` array. */
export function tensorFromJson(
  name: string,
  datatype: Datatype,
  shape: readonly number[],
  values: readonly unknown[],
): Tensor {
  const info = DATATYPE_TABLE[datatype];
  if (info.array === null) {
    return { name, datatype, shape, data: values.map((v) => Buffer.from(String(v), 'utf8')) };
  }
  const out = new info.array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (out instanceof BigInt64Array || out instanceof BigUint64Array) out[i] = BigInt(v as number);
    else if (datatype === 'FP16') out[i] = numberToHalfBits(v as number);
    else if (datatype === 'BF16') out[i] = numberToBf16Bits(v as number);
    else out[i] = typeof v === 'boolean' ? Number(v) : (v as number);
  }
  return { name, datatype, shape, data: out } as Tensor;
}
