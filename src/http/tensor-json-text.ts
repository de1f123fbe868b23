// Raw output tensor bytes -> the text of a flat JSON `data` array. This is the hot part of a JSON
// inference response, so each datatype takes the fastest path that prints it exactly:
//
// - Numbers print as JS does: the shortest decimal that reads back as the same double. A float32
//   value widened to double therefore round-trips to the same float32 (0.1f prints as
//   0.10000000149011612, as Triton's rapidjson AppendDouble does). -0 prints as -0.
// - NaN, Infinity and -Infinity print as the bare tokens NaN / Infinity / -Infinity, as Triton's
//   writer does (rapidjson kWriteNanAndInfFlag). That is not strict JSON: Python's json module and
//   tritonclient read it, JSON.parse does not (`parseJsonBytes` here does).
// - INT64/UINT64 print every digit (BigInt to decimal), never rounded through a double.
// - FP16/BF16 print as the numbers they hold (exactly; Triton refuses FP16/BF16 as JSON).
// - BOOL prints true/false (any non-zero byte is true, as in Triton).
// - BYTES elements print as JSON strings of their UTF-8 decoding. Bytes that are not valid UTF-8
//   become U+FFFD (Triton copies the raw bytes into its JSON instead, producing invalid UTF-8);
//   clients that need exact bytes should ask for the output as binary.
//
// Measured on the 2-core dev box (Node 20.20), fresh random arrays per call (repeating one array
// hits V8's number-to-string cache and makes join look 5x faster than it is), ns per element:
//   FP32 1x784:   JSON.stringify(Array.from(v)) 225-300   v.join(',') 315-620   `s += ',' + x` 420-460
//   FP32 128x10:  JSON.stringify(Array.from(v)) 235-280   v.join(',') 360-445   `s += ',' + x` 340-390
//   FP32 65536:   JSON.stringify(Array.from(v)) 305-370   v.join(',') 585-640
//   INT32 1280:   JSON.stringify(Array.from(v)) 100-107   v.join(',') 70-105    `s += ',' + x` 130-145
//   INT64 1280:   v.join(',') 109                                              `s += ',' + x` 135-160
// So: JSON.stringify(Array.from(v)) for numbers (it writes null for NaN/Infinity and 0 for -0, so
// a one-pass check sends tensors holding those to a per-element loop), join for BigInt arrays.

import { Buffer } from 'node:buffer';
import { DATATYPE_TABLE, type Datatype } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import { bytesElements } from '../tensor/bytes-tensor.js';
import { bf16ArrayToFloat32, halfArrayToFloat32 } from '../tensor/half.js';
import { forShape, labelPrefix, type TensorLabel } from '../tensor/tensor-label.js';
import { numericConstructor, readLittleEndian } from '../tensor/typed-view.js';

type NumberArray =
  | Float32Array
  | Float64Array
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array;

/** True when JSON.stringify would print every element right: no NaN, ±Infinity or -0. */
function plainNumbers(v: NumberArray): boolean {
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    if (x - x !== 0 || (x === 0 && 1 / x < 0)) return false;
  }
  return true;
}

function numbersText(v: NumberArray): string {
  if (plainNumbers(v)) return JSON.stringify(Array.from(v));
  // String(NaN) is "NaN" and String(-Infinity) is "-Infinity": the tokens Triton writes.
  let s = '[';
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    if (i > 0) s += ',';
    s += x === 0 && 1 / x < 0 ? '-0' : String(x);
  }
  return `${s}]`;
}

function boolText(v: Uint8Array): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) s += (i > 0 ? ',' : '') + (v[i] !== 0 ? 'true' : 'false');
  return `${s}]`;
}

function bytesText(bytes: Uint8Array, count: number, label: TensorLabel | undefined): string {
  const elements = bytesElements(bytes, label);
  if (elements.length !== count) {
    throw fail(
      'INTERNAL',
      `${labelPrefix(label)}expected ${count} BYTES elements${forShape(label)}, got ${elements.length}`,
    );
  }
  const strings = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const e = elements[i] as Uint8Array;
    strings[i] = Buffer.from(e.buffer, e.byteOffset, e.byteLength).toString('utf8');
  }
  return JSON.stringify(strings);
}

/**
 * The JSON array text (flat, row-major) of `count` elements of `datatype` held in `bytes`
 * (little-endian; BYTES length-prefixed). The bytes must match the count exactly: a mismatch is a
 * server bug, reported as INTERNAL.
 */
export function tensorJsonText(
  bytes: Uint8Array,
  datatype: Datatype,
  count: number,
  label?: TensorLabel,
): string {
  const info = DATATYPE_TABLE[datatype];
  if (info.name === 'BYTES') return bytesText(bytes, count, label);
  if (bytes.byteLength !== count * info.byteSize) {
    throw fail(
      'INTERNAL',
      `${labelPrefix(label)}expected ${count * info.byteSize} bytes${forShape(label, datatype)}, ` +
        `got ${bytes.byteLength}`,
    );
  }
  switch (info.json) {
    case 'bigint': {
      // BigInt64Array#join prints exact decimal digits for the whole range.
      const v =
        info.name === 'INT64'
          ? readLittleEndian(bytes, BigInt64Array)
          : readLittleEndian(bytes, BigUint64Array);
      return `[${v.join(',')}]`;
    }
    case 'bool':
      return boolText(bytes);
    case 'half':
      return numbersText(halfArrayToFloat32(readLittleEndian(bytes, Uint16Array)));
    case 'bfloat':
      return numbersText(bf16ArrayToFloat32(readLittleEndian(bytes, Uint16Array)));
    case 'int':
    case 'float':
      return numbersText(readLittleEndian(bytes, numericConstructor(info)) as NumberArray);
    case 'string':
      throw new Error('BYTES is handled above');
    default: {
      const unreachable: never = info.json;
      throw new Error(`unhandled JSON element kind ${String(unreachable)}`);
    }
  }
}

/**
 * `tensorJsonText` in pieces of at most `perPiece` elements, whose concatenation is exactly that
 * text: each element prints on its own, so printing runs of elements and joining them with commas
 * changes no byte. A large output then never exists as one JS array of numbers and one string of
 * its whole text at once: pieces are made as they are asked for, and encode-infer-response.ts turns
 * each into bytes before asking for the next.
 * BYTES comes back whole: its elements have no fixed size to cut at.
 */
export function* tensorJsonPieces(
  bytes: Uint8Array,
  datatype: Datatype,
  count: number,
  perPiece: number,
  label?: TensorLabel,
): Generator<string, void, undefined> {
  const size = DATATYPE_TABLE[datatype].byteSize;
  if (size === 0 || count <= perPiece || bytes.byteLength !== count * size) {
    yield tensorJsonText(bytes, datatype, count, label);
    return;
  }
  // One piece at a time: the caller turns each into bytes before asking for the next, so only one
  // piece's string (and the array it was printed from) is ever alive.
  for (let first = 0; first < count; first += perPiece) {
    const n = Math.min(perPiece, count - first);
    const text = tensorJsonText(
      bytes.subarray(first * size, (first + n) * size),
      datatype,
      n,
      label,
    );
    // "[a,b]" -> "[a,b" for the first piece, ",c,d" after it, "]" closes the last.
    yield first === 0 ? text.slice(0, -1) : `,${text.slice(1, -1)}`;
  }
  yield ']';
}
