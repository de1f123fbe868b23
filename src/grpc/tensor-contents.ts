// gRPC's typed tensor spelling (`InferTensorContents`: one repeated field per datatype family) ->
// the raw little-endian bytes every other transport hands the data plane. Which field a datatype
// reads, and the integer ranges of the narrow types that share `int_contents`/`uint_contents`.

import { fail } from '../errors.js';
import { encodeBytesTensor } from '../tensor/bytes-tensor.js';
import { type Datatype, isDatatype } from '../tensor/datatypes.js';

/** `InferTensorContents` as proto-loader decodes it (int64 fields as decimal strings). */
export interface TensorContents {
  readonly bool_contents?: readonly boolean[];
  readonly int_contents?: readonly number[];
  readonly int64_contents?: readonly (string | number)[];
  readonly uint_contents?: readonly number[];
  readonly uint64_contents?: readonly (string | number)[];
  readonly fp32_contents?: readonly number[];
  readonly fp64_contents?: readonly number[];
  readonly bytes_contents?: readonly Uint8Array[];
}

type ContentsField = keyof TensorContents;

/** The field each datatype is spelled in; FP16 and BF16 have none (Triton: raw contents only). */
const FIELD: Readonly<Record<Datatype, ContentsField | undefined>> = {
  BOOL: 'bool_contents',
  UINT8: 'uint_contents',
  UINT16: 'uint_contents',
  UINT32: 'uint_contents',
  UINT64: 'uint64_contents',
  INT8: 'int_contents',
  INT16: 'int_contents',
  INT32: 'int_contents',
  INT64: 'int64_contents',
  FP16: undefined,
  BF16: undefined,
  FP32: 'fp32_contents',
  FP64: 'fp64_contents',
  BYTES: 'bytes_contents',
};

const FIELDS: readonly ContentsField[] = [
  'bool_contents',
  'int_contents',
  'int64_contents',
  'uint_contents',
  'uint64_contents',
  'fp32_contents',
  'fp64_contents',
  'bytes_contents',
];

/** The narrow integer types, which the wire carries as 32-bit values: their inclusive ranges. */
const NARROW: Partial<Record<Datatype, readonly [number, number]>> = {
  INT8: [-0x80, 0x7f],
  INT16: [-0x8000, 0x7fff],
  UINT8: [0, 0xff],
  UINT16: [0, 0xffff],
};

/**
 * The raw bytes of one input given as typed contents. An unknown datatype yields no bytes: request
 * validation then reports the datatype against the model's, as for every transport.
 */
export function contentsToRaw(
  name: string,
  datatype: string,
  contents: TensorContents,
): Uint8Array {
  if (!isDatatype(datatype)) return new Uint8Array(0);
  const field = FIELD[datatype];
  const present = FIELDS.filter((f) => (contents[f]?.length ?? 0) > 0);
  if (field === undefined) {
    throw fail(
      'BAD_TENSOR_DATA',
      `input '${name}': ${datatype} has no typed contents field; send it in raw_input_contents`,
    );
  }
  const wrong = present.find((f) => f !== field);
  if (wrong !== undefined) {
    throw fail(
      'BAD_TENSOR_DATA',
      `input '${name}': expected ${datatype} data in contents.${field}, got contents.${wrong}`,
    );
  }
  return fill(name, datatype, contents);
}

function fill(name: string, datatype: Datatype, c: TensorContents): Uint8Array {
  const bytes = (v: ArrayBufferView): Uint8Array =>
    new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  switch (datatype) {
    case 'BOOL':
      return Uint8Array.from(c.bool_contents ?? [], (b) => (b ? 1 : 0));
    case 'UINT8':
    case 'UINT16':
    case 'INT8':
    case 'INT16': {
      const values = (datatype.startsWith('U') ? c.uint_contents : c.int_contents) ?? [];
      const [lo, hi] = NARROW[datatype] as readonly [number, number];
      const bad = values.findIndex((v) => v < lo || v > hi);
      if (bad !== -1) {
        throw fail(
          'BAD_TENSOR_DATA',
          `input '${name}': element ${bad} is ${values[bad]}, outside the ${datatype} range ${lo}..${hi}`,
        );
      }
      if (datatype === 'UINT8') return Uint8Array.from(values);
      if (datatype === 'INT8') return bytes(Int8Array.from(values));
      return bytes(datatype === 'UINT16' ? Uint16Array.from(values) : Int16Array.from(values));
    }
    case 'UINT32':
      return bytes(Uint32Array.from(c.uint_contents ?? []));
    case 'INT32':
      return bytes(Int32Array.from(c.int_contents ?? []));
    // int64 values arrive as decimal strings so no precision is lost before they reach BigInt.
    case 'INT64':
      return bytes(BigInt64Array.from(c.int64_contents ?? [], (v) => BigInt(v)));
    case 'UINT64':
      return bytes(BigUint64Array.from(c.uint64_contents ?? [], (v) => BigInt(v)));
    case 'FP32':
      return bytes(Float32Array.from(c.fp32_contents ?? []));
    case 'FP64':
      return bytes(Float64Array.from(c.fp64_contents ?? []));
    case 'BYTES':
      return encodeBytesTensor(c.bytes_contents ?? []);
    case 'FP16':
    case 'BF16':
      throw fail('BAD_TENSOR_DATA', `input '${name}': ${datatype} must be sent raw`);
  }
}
