// JSON tensor data -> raw little-endian bytes: the functions request validation calls for inputs
// that arrived as a JSON `data` array (flat or regularly nested, row-major).
//
// Element rules, per datatype:
// - BOOL: true/false only (as Triton: rapidjson AsBool).
// - integer types: JS numbers that are integers inside the type's range. Triton casts out-of-range
//   values silently (its own FIXME); infernode rejects them instead.
// - INT64/UINT64: numbers that are *safe* integers (|x| <= 2^53-1). JSON.parse has already rounded
//   anything larger, so accepting it would silently change the value; send full 64-bit values with
//   the binary extension. Strings are not accepted (Triton takes numbers only).
// - FP32/FP64: any number, including NaN/±Infinity (the NaN/Infinity tokens of `json-text.ts`).
// - FP16/BF16: numbers, rounded to nearest-even. Triton refuses FP16/BF16 over JSON; this is an
//   infernode extension.
// - BYTES: strings, written as UTF-8 with a 4-byte length prefix (Triton: AsString, strings only).

import { Buffer } from 'node:buffer';
import { DATATYPE_TABLE, type Datatype, type DatatypeInfo } from '../tensor/datatypes.js';
import { fail, type InferenceServerError } from '../errors.js';
import { writeBytesString } from '../tensor/bytes-tensor.js';
import { numberToBf16Bits, numberToHalfBits } from '../tensor/half.js';
import { inputLabel, labelPrefix, type TensorLabel } from '../tensor/tensor-label.js';
import type { DecodedInput } from './inference-request.js';
import { finishWrite, numericConstructor, writableLittleEndian } from '../tensor/typed-view.js';

/** Deeper `data` cannot come from a JSON body (the pre-scan caps depth at 100); other callers might. */
const MAX_DATA_DEPTH = 100;

/** Inclusive ranges of the integer datatypes JSON may fill (also the HTTP body scan's). */
export const INT_RANGE: Partial<Record<Datatype, readonly [number, number]>> = {
  UINT8: [0, 0xff],
  UINT16: [0, 0xffff],
  UINT32: [0, 0xffffffff],
  UINT64: [0, Number.MAX_SAFE_INTEGER],
  INT8: [-0x80, 0x7f],
  INT16: [-0x8000, 0x7fff],
  INT32: [-0x80000000, 0x7fffffff],
  INT64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const TWO_POW_32 = 4294967296;

function describe(x: unknown): string {
  if (typeof x === 'string') {
    return `the string ${JSON.stringify(x.length > 32 ? `${x.slice(0, 32)}...` : x)}`;
  }
  if (Array.isArray(x)) return 'an array';
  if (x === null) return 'null';
  if (typeof x === 'object') return 'an object';
  return String(x);
}

/**
 * The extent of each nesting level, read along the first elements, after checking that every array
 * at a level has the same length (a regular, non-ragged nesting). Leaf arrays are not scanned here:
 * the element loops reject an array where a value belongs. Cost: one visit per non-leaf array.
 */
function nestingDims(values: unknown, label: TensorLabel | undefined): number[] {
  const dims: number[] = [];
  for (let v = values; Array.isArray(v); v = (v as unknown[])[0]) {
    dims.push(v.length);
    if (dims.length > MAX_DATA_DEPTH) {
      throw fail('BAD_TENSOR_DATA', `${labelPrefix(label)}data is nested deeper than 100 levels`);
    }
    if (v.length === 0) break;
  }
  if (dims.length > 1) checkRegular(values as unknown[], 0, dims, label);
  return dims;
}

function checkRegular(arr: unknown[], depth: number, dims: number[], label?: TensorLabel): void {
  const want = dims[depth + 1] as number;
  const leafParent = depth + 2 === dims.length;
  for (const child of arr) {
    if (!Array.isArray(child) || child.length !== want) {
      throw fail(
        'BAD_TENSOR_DATA',
        `${labelPrefix(label)}data is ragged: at nesting depth ${depth + 1} expected an array of ` +
          `${want} elements, got ${Array.isArray(child) ? `an array of ${child.length}` : `${describe(child)}, not an array`}`,
      );
    }
    if (!leafParent) checkRegular(child, depth + 1, dims, label);
  }
}

function elementTotal(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

/**
 * Checks the structure and element count; returns the nesting dims. A count that does not match the
 * shape is worded as Triton's HTTP front end words it (http_server.cc), which names neither the
 * input nor the counts: qa/L0_http's test.sh matches the whole error body.
 */
function checkCount(values: unknown, count: number, label: TensorLabel | undefined): number[] {
  const dims = nestingDims(values, label);
  const total = elementTotal(dims);
  if (total !== count) throw elementCountError(count, total);
  return dims;
}

/**
 * The error for `data` holding `total` elements where the shape asks for `count`, in the words of
 * Triton's HTTP front end (one text for too many, another for too few).
 */
export function elementCountError(count: number, total: number): InferenceServerError {
  return total > count
    ? fail(
        'BAD_TENSOR_DATA',
        "Unable to parse 'data': Shape does not match true shape of 'data' field",
      )
    : fail('BAD_TENSOR_DATA', "Failed to parse 'data' field: shape does not match true shape");
}

/**
 * Checks, before anything about the model, that each JSON `data` array holds as many elements as
 * its own shape says: Triton's HTTP front end parses every input's data before the core checks the
 * request against the model, so this mismatch is what a client hears first. Left to validation,
 * which words them: shapes that are not lists of safe non-negative integers, and counts over
 * `maxElements` (Triton checks the input size limit before reading the data).
 */
export function checkJsonCountsAgainstShapes(
  inputs: readonly DecodedInput[],
  maxElements: number,
): void {
  for (const input of inputs) {
    const data = input.data;
    if (data.kind === 'raw' || data.kind === 'shm') continue;
    const shape: number[] = [];
    let count = 1;
    for (const d of input.shape) {
      if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) return;
      shape.push(d);
      count *= d;
    }
    if (count > maxElements) continue;
    // Data the HTTP decoder already typed carries its element count; the rest is walked.
    if (data.kind === 'typed') {
      if (data.count !== count) throw elementCountError(count, data.count);
    } else {
      checkCount(data.values, count, inputLabel(input.name, shape));
    }
  }
}

/**
 * Bytes the tensor needs once written: count * size for fixed-size types, the sum of 4 + UTF-8
 * length for BYTES. Also checks the nesting is regular and holds exactly `count` elements, so
 * nothing is allocated for data that cannot fit (for BYTES it checks every element is a string).
 */
export function jsonTensorByteLength(
  values: unknown,
  datatype: Datatype,
  count: number,
  label?: TensorLabel,
): number {
  const dims = checkCount(values, count, label);
  const info = DATATYPE_TABLE[datatype];
  if (info.name !== 'BYTES') return count * info.byteSize;
  let bytes = 0;
  let index = 0;
  const visit = (v: unknown, depth: number): void => {
    if (depth < dims.length) {
      for (const child of v as unknown[]) visit(child, depth + 1);
      return;
    }
    if (typeof v !== 'string') throw elementError(label, index, v, 'a string', 'BYTES');
    bytes += 4 + Buffer.byteLength(v, 'utf8');
    index++;
  };
  visit(values, 0);
  return bytes;
}

function elementError(
  label: TensorLabel | undefined,
  index: number,
  x: unknown,
  expected: string,
  datatype: Datatype,
): InferenceServerError {
  const ragged = Array.isArray(x) ? ' (the data is ragged)' : '';
  return fail(
    'BAD_TENSOR_DATA',
    `${labelPrefix(label)}element ${index} is ${describe(x)}${ragged}, expected ${expected} for ${datatype}`,
  );
}

/**
 * Writes the elements of one tensor. One writer per tensor; each leaf array is written by a loop
 * specialised per element kind, so the per-element cost is a type check and a store (no closures,
 * no per-element allocation, no switch inside the loop).
 */
class JsonTensorWriter {
  at = 0;
  constructor(
    private readonly info: DatatypeInfo,
    private readonly out: ArrayBufferView,
    private readonly label: TensorLabel | undefined,
    private readonly leafDepth: number,
  ) {}

  walk(v: unknown, depth: number): void {
    if (depth === this.leafDepth) this.leaves(v as readonly unknown[]);
    else for (const child of v as unknown[]) this.walk(child, depth + 1);
  }

  /** A bare scalar `data` is one element (Triton accepts it too). */
  scalar(x: unknown): void {
    this.leaves([x]);
  }

  private leaves(arr: readonly unknown[]): void {
    const { info, label } = this;
    const base = this.at;
    const n = arr.length;
    switch (info.json) {
      case 'float': {
        const out = this.out as Float32Array | Float64Array;
        for (let i = 0; i < n; i++) {
          const x = arr[i];
          if (typeof x !== 'number') throw elementError(label, base + i, x, 'a number', info.name);
          out[base + i] = x;
        }
        break;
      }
      case 'int': {
        const out = this.out as Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array;
        const [min, max] = INT_RANGE[info.name] as readonly [number, number];
        for (let i = 0; i < n; i++) {
          const x = arr[i];
          if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max) {
            throw elementError(label, base + i, x, `an integer in [${min}, ${max}]`, info.name);
          }
          out[base + i] = x;
        }
        break;
      }
      case 'bigint': {
        // Two 32-bit words per element instead of a BigInt per element: ToUint32 of a safe integer
        // is its low word (two's complement for negatives), floor(x / 2^32) its high word.
        const out = this.out as Uint32Array;
        const [min, max] = INT_RANGE[info.name] as readonly [number, number];
        for (let i = 0; i < n; i++) {
          const x = arr[i];
          if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < min || x > max) {
            throw elementError(label, base + i, x, `a safe integer in [${min}, ${max}]`, info.name);
          }
          const w = 2 * (base + i);
          out[w] = x >>> 0;
          out[w + 1] = Math.floor(x / TWO_POW_32) >>> 0;
        }
        break;
      }
      case 'bool': {
        const out = this.out as Uint8Array;
        for (let i = 0; i < n; i++) {
          const x = arr[i];
          if (x !== true && x !== false)
            throw elementError(label, base + i, x, 'true or false', 'BOOL');
          out[base + i] = x ? 1 : 0;
        }
        break;
      }
      case 'half':
      case 'bfloat': {
        const out = this.out as Uint16Array;
        const convert = info.json === 'half' ? numberToHalfBits : numberToBf16Bits;
        for (let i = 0; i < n; i++) {
          const x = arr[i];
          if (typeof x !== 'number') throw elementError(label, base + i, x, 'a number', info.name);
          out[base + i] = convert(x);
        }
        break;
      }
      case 'string':
        throw new Error('BYTES is written by writeJsonBytes');
      default: {
        const unreachable: never = info.json;
        throw new Error(`unhandled JSON element kind ${String(unreachable)}`);
      }
    }
    this.at = base + n;
  }
}

/** BYTES: strings, each as prefix + UTF-8, checked against the room left in `target`. */
function writeJsonBytes(
  values: unknown,
  elementDepth: number,
  target: Uint8Array,
  label: TensorLabel | undefined,
): number {
  const buf = Buffer.from(target.buffer, target.byteOffset, target.byteLength);
  let at = 0;
  let index = 0;
  const visit = (v: unknown, depth: number): void => {
    if (depth < elementDepth) {
      for (const child of v as unknown[]) visit(child, depth + 1);
      return;
    }
    if (typeof v !== 'string') throw elementError(label, index, v, 'a string', 'BYTES');
    if (at + 4 + Buffer.byteLength(v, 'utf8') > buf.length) {
      throw fail('INTERNAL', `${labelPrefix(label)}target is smaller than jsonTensorByteLength`);
    }
    at = writeBytesString(buf, at, v);
    index++;
  };
  visit(values, 0);
  return at;
}

/**
 * Flattens `values` (nested or flat arrays, or one scalar) into `target` as little-endian bytes of
 * `datatype`; returns the number of bytes written. `target` must hold at least
 * `jsonTensorByteLength(values, datatype, count)` bytes. Ragged nesting, a wrong element count or
 * an element of the wrong kind or range throws BAD_TENSOR_DATA naming the element.
 */
export function writeJsonTensor(
  values: unknown,
  datatype: Datatype,
  count: number,
  target: Uint8Array,
  label?: TensorLabel,
): number {
  const dims = checkCount(values, count, label);
  const info = DATATYPE_TABLE[datatype];
  if (info.name === 'BYTES') return writeJsonBytes(values, dims.length, target, label);
  const byteLength = count * info.byteSize;
  if (target.length < byteLength) {
    throw fail(
      'INTERNAL',
      `${labelPrefix(label)}target holds ${target.length} bytes, ${byteLength} are needed`,
    );
  }
  const region = target.subarray(0, byteLength);
  // 64-bit integers are written as pairs of 32-bit words (see the 'bigint' loop).
  const out =
    info.json === 'bigint'
      ? writableLittleEndian(region, Uint32Array, 2 * count)
      : writableLittleEndian(region, numericConstructor(info), count);
  // Leaf arrays sit one level above the elements; a bare scalar has no leaf array at all.
  const writer = new JsonTensorWriter(info, out, label, dims.length - 1);
  if (dims.length === 0) writer.scalar(values);
  else if (count > 0) writer.walk(values, 0);
  finishWrite(region, out);
  return byteLength;
}
