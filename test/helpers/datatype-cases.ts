// The datatype case table the transports share: per identity_<dtype> fixture model, values that
// survive JSON (`json`) and raw little-endian bytes to round-trip bit for bit (`bytes`).

export interface DatatypeCase {
  readonly model: string;
  readonly datatype: string;
  readonly json: unknown[];
  readonly bytes: Buffer;
}

const le = <T extends { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }>(a: T) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export const DATATYPE_CASES: readonly DatatypeCase[] = [
  {
    model: 'identity_bool',
    datatype: 'BOOL',
    json: [true, false, true, true],
    bytes: Buffer.from([1, 0, 1, 1]),
  },
  {
    model: 'identity_uint8',
    datatype: 'UINT8',
    json: [0, 1, 128, 255],
    bytes: Buffer.from([0, 1, 128, 255]),
  },
  {
    model: 'identity_uint16',
    datatype: 'UINT16',
    json: [0, 1, 40000, 65535],
    bytes: le(Uint16Array.of(0, 1, 40000, 65535)),
  },
  {
    model: 'identity_uint32',
    datatype: 'UINT32',
    json: [0, 1, 3e9, 4294967295],
    bytes: le(Uint32Array.of(0, 1, 3e9, 4294967295)),
  },
  {
    model: 'identity_uint64',
    datatype: 'UINT64',
    json: [0, 1, 2 ** 40, 2 ** 53 - 1],
    bytes: le(BigUint64Array.of(0n, 1n, 2n ** 40n, 2n ** 53n - 1n)),
  },
  {
    model: 'identity_int8',
    datatype: 'INT8',
    json: [-128, -1, 0, 127],
    bytes: le(Int8Array.of(-128, -1, 0, 127)),
  },
  {
    model: 'identity_int16',
    datatype: 'INT16',
    json: [-32768, -1, 0, 32767],
    bytes: le(Int16Array.of(-32768, -1, 0, 32767)),
  },
  {
    model: 'identity_int32',
    datatype: 'INT32',
    json: [-2147483648, -1, 0, 2147483647],
    bytes: le(Int32Array.of(-2147483648, -1, 0, 2147483647)),
  },
  {
    model: 'identity_int64',
    datatype: 'INT64',
    json: [-(2 ** 53) + 1, -1, 0, 2 ** 53 - 1],
    bytes: le(BigInt64Array.of(-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n)),
  },
  {
    model: 'identity_fp16',
    datatype: 'FP16',
    json: [0, -2, 0.5, 65504],
    bytes: le(Uint16Array.of(0x0000, 0x8000, 0x7c00, 0x0001)),
  },
  {
    model: 'identity_fp32',
    datatype: 'FP32',
    json: [0, -1.5, 3.25, Math.fround(1e30)],
    bytes: le(Float32Array.of(-0, Math.PI, -Infinity, 1e-40)),
  },
  {
    model: 'identity_fp64',
    datatype: 'FP64',
    json: [0, -1.5, Math.PI, 1e300],
    bytes: le(Float64Array.of(-0, Math.E, 1e-310, -1e308)),
  },
];
