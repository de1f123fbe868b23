// The fast path of a JSON /infer body: one pass over the bytes that writes every input's `data`
// straight into a typed array of the input's declared datatype (no JSON.parse of the numbers, no JS
// array of them), and leaves the rest of the document, with each such `data` replaced by `0`, to
// JSON.parse. A 64 MiB body of numbers used to become a JS array of 16 M numbers (about 8x the
// body in V8's heap) before it was converted; now it becomes the tensor itself.
//
// The scan accepts only what it can decode exactly as the old path (json-text.ts, then
// json-tensor.ts) would, and answers `undefined` for everything else, so the caller takes the old
// path and its errors stay what they were, word for word. Taken by the old path: a `data` that is
// not a regular non-empty nested array; an element of the wrong kind or out of range for the
// datatype; a `data` before the input's `datatype`, or a datatype that is not one; an escaped or
// repeated key among `inputs`, `datatype`, `data`; nesting past the depth limit; and any syntax
// error (JSON.parse of the rest, or the scan, finds it).
//
// One refusal is the scan's own: an `inputs` list longer than MAX_TENSORS stops the scan at the
// first element past the limit, and an `outputs` list is counted as it is skipped, up to the same
// point, so an oversized body is refused before its tensors are made and the rest is never read.

import { Buffer } from 'node:buffer';
import {
  DATATYPE_TABLE,
  isDatatype,
  type Datatype,
  type DatatypeInfo,
} from '../tensor/datatypes.js';
import { numberToBf16Bits, numberToHalfBits } from '../tensor/half.js';
import { HOST_LITTLE_ENDIAN } from '../tensor/typed-view.js';
import { allocateRequestBytes, MOVE_MIN_BYTES } from '../memory/movable-buffers.js';
import { readNumber, type NumberCursor } from './json-number.js';
import { MAX_JSON_DEPTH } from './json-text.js';
import { INT_RANGE } from '../protocol/json-tensor.js';
import { MAX_TENSORS } from '../protocol/inference-request.js';
import { commasToClose, STOPPED, tooManyTensors } from './json-tensor-count.js';

/** One input's `data`, already in its datatype's little-endian layout (BYTES: length-prefixed). */
export interface ScannedTensor {
  readonly datatype: Datatype;
  /** Elements read; the nesting was regular, so this is the product of its extents. */
  readonly count: number;
  readonly bytes: Uint8Array;
}

export interface ScannedBody {
  /** The document with every scanned `data` value replaced by `0`, for JSON.parse. */
  readonly rest: Uint8Array;
  /** By index in `inputs`. */
  readonly tensors: ReadonlyMap<number, ScannedTensor>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;

const TWO_POW_32 = 4294967296;

/** Thrown inside the scan to give up; caught at the top, never escapes. */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp();

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * A typed destination that grows (geometrically) when the element count was not known; when the
 * input's shape came first its product sizes it exactly, so a large tensor is allocated once.
 */
class TensorSink {
  bytes: Uint8Array;
  count = 0;
  at = 0; // bytes used (BYTES) or elements written (fixed size)
  private f32: Float32Array | undefined;
  private f64: Float64Array | undefined;
  private u8: Uint8Array | undefined;
  private u16: Uint16Array | undefined;
  private u32: Uint32Array | undefined;
  /** The view the 'int' datatypes store into (assignment wraps nothing: values are range-checked). */
  private ints: Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array =
    new Uint8Array(0);
  private readonly range: readonly [number, number] | undefined;

  constructor(
    readonly info: DatatypeInfo,
    expected: number,
  ) {
    this.range = INT_RANGE[info.name];
    const size = info.byteSize === 0 ? 1 : info.byteSize;
    this.bytes = allocate(Math.max(expected, 16) * size);
    this.views();
  }

  private views(): void {
    const { buffer, byteOffset, byteLength } = this.bytes;
    const n = byteLength / (this.info.byteSize || 1);
    switch (this.info.name) {
      case 'FP32':
        this.f32 = new Float32Array(buffer, byteOffset, n);
        break;
      case 'FP64':
        this.f64 = new Float64Array(buffer, byteOffset, n);
        break;
      case 'UINT8':
      case 'BOOL':
      case 'BYTES':
        this.u8 = this.bytes;
        this.ints = this.bytes;
        break;
      case 'INT8':
        this.ints = new Int8Array(buffer, byteOffset, n);
        break;
      case 'UINT16':
      case 'FP16':
      case 'BF16':
        this.u16 = new Uint16Array(buffer, byteOffset, n);
        this.ints = this.u16;
        break;
      case 'INT16':
        this.ints = new Int16Array(buffer, byteOffset, n);
        break;
      case 'UINT32':
      case 'INT64':
      case 'UINT64':
        this.u32 = new Uint32Array(buffer, byteOffset, byteLength / 4);
        this.ints = this.u32;
        break;
      case 'INT32':
        this.ints = new Int32Array(buffer, byteOffset, n);
        break;
    }
  }

  private grow(minBytes: number): void {
    const next = allocate(Math.max(minBytes, this.bytes.byteLength * 2));
    next.set(this.bytes.subarray(0, this.usedBytes()));
    this.bytes = next;
    this.views();
  }

  usedBytes(): number {
    return this.info.byteSize === 0 ? this.at : this.at * this.info.byteSize;
  }

  /** A number element, checked and stored as the old path's loops do (json-tensor.ts). */
  number(x: number): void {
    const i = this.at;
    if ((i + 1) * this.info.byteSize > this.bytes.byteLength) this.grow((i + 1) * 8);
    switch (this.info.json) {
      case 'float':
        if (this.f32 !== undefined) this.f32[i] = x;
        else (this.f64 as Float64Array)[i] = x;
        break;
      case 'int': {
        const [min, max] = this.range as readonly [number, number];
        if (!Number.isInteger(x) || x < min || x > max) throw GIVE_UP;
        this.ints[i] = x;
        break;
      }
      case 'bigint': {
        const [min, max] = this.range as readonly [number, number];
        if (!Number.isSafeInteger(x) || x < min || x > max) throw GIVE_UP;
        const out = this.u32 as Uint32Array;
        out[2 * i] = x >>> 0;
        out[2 * i + 1] = Math.floor(x / TWO_POW_32) >>> 0;
        break;
      }
      case 'half':
        (this.u16 as Uint16Array)[i] = numberToHalfBits(x);
        break;
      case 'bfloat':
        (this.u16 as Uint16Array)[i] = numberToBf16Bits(x);
        break;
      case 'bool':
      case 'string':
        throw GIVE_UP;
    }
    this.at = i + 1;
    this.count++;
  }

  bool(x: boolean): void {
    if (this.info.json !== 'bool') throw GIVE_UP;
    if (this.at + 1 > this.bytes.byteLength) this.grow(this.at + 1);
    (this.u8 as Uint8Array)[this.at++] = x ? 1 : 0;
    this.count++;
  }

  /** A BYTES element: its 4-byte little-endian length, then its UTF-8 bytes. */
  string(utf8: Uint8Array | string): void {
    if (this.info.json !== 'string') throw GIVE_UP;
    const length = typeof utf8 === 'string' ? Buffer.byteLength(utf8, 'utf8') : utf8.byteLength;
    const need = this.at + 4 + length;
    if (need > this.bytes.byteLength) this.grow(need);
    const out = this.u8 as Uint8Array;
    const at = this.at;
    out[at] = length & 0xff;
    out[at + 1] = (length >>> 8) & 0xff;
    out[at + 2] = (length >>> 16) & 0xff;
    out[at + 3] = (length >>> 24) & 0xff;
    if (typeof utf8 === 'string') {
      Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(utf8, at + 4, 'utf8');
    } else {
      out.set(utf8, at + 4);
    }
    this.at = need;
    this.count++;
  }

  finish(): ScannedTensor {
    return {
      datatype: this.info.name,
      count: this.count,
      bytes: this.bytes.subarray(0, this.usedBytes()),
    };
  }
}

/** Large destinations are the request's own movable memory (the worker may take them as they are). */
function allocate(bytes: number): Uint8Array {
  return bytes >= MOVE_MIN_BYTES ? allocateRequestBytes(bytes) : new Uint8Array(bytes);
}

/** What the scan knows of the input object it is in. */
interface InputState {
  datatype: Datatype | undefined;
  elements: number | undefined;
  sawDatatype: boolean;
  sawData: boolean;
}

class Scanner {
  i = 0;
  readonly cursor: NumberCursor = { end: 0 };
  readonly tensors = new Map<number, ScannedTensor>();
  /** [start, end) byte ranges of the scanned `data` values, in order. */
  readonly cuts: number[] = [];
  private readonly text: (from: number, to: number) => string;

  constructor(readonly b: Uint8Array) {
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    this.text = (from, to) => buf.toString('latin1', from, to);
  }

  private ws(): number | undefined {
    const b = this.b;
    let c = b[this.i];
    while (isSpace(c)) c = b[++this.i];
    return c;
  }

  private expect(c: number): void {
    if (this.ws() !== c) throw GIVE_UP;
    this.i++;
  }

  /** A string token's raw bytes (between the quotes), or GIVE_UP for escapes when `plain`. */
  private stringBytes(plain: boolean): { from: number; to: number; escaped: boolean } {
    const b = this.b;
    if (b[this.i] !== QUOTE) throw GIVE_UP;
    const from = ++this.i;
    let escaped = false;
    for (;;) {
      const c = b[this.i];
      if (c === undefined) throw GIVE_UP;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        if (plain) throw GIVE_UP;
        escaped = true;
        this.i += 2;
        continue;
      }
      this.i++;
    }
    const to = this.i++;
    return { from, to, escaped };
  }

  private keyIs(from: number, to: number, key: string): boolean {
    if (to - from !== key.length) return false;
    for (let k = 0; k < key.length; k++) if (this.b[from + k] !== key.charCodeAt(k)) return false;
    return true;
  }

  /** Any JSON value, structure only (JSON.parse checks the rest later). */
  private skipValue(depth: number): void {
    if (depth > MAX_JSON_DEPTH) throw GIVE_UP;
    const c = this.ws();
    if (c === QUOTE) {
      this.stringBytes(false);
    } else if (c === OPEN_SQUARE || c === OPEN_CURLY) {
      const close = c === OPEN_SQUARE ? CLOSE_SQUARE : CLOSE_CURLY;
      this.i++;
      if (this.ws() === close) {
        this.i++;
        return;
      }
      for (;;) {
        if (c === OPEN_CURLY) {
          this.ws();
          this.stringBytes(false);
          this.expect(COLON);
        }
        this.skipValue(depth + 1);
        const d = this.ws();
        this.i++;
        if (d === close) return;
        if (d !== COMMA) throw GIVE_UP;
      }
    } else {
      // A number or literal: up to the next delimiter (JSON.parse judges the token itself).
      const b = this.b;
      let k = this.i;
      for (let e = b[k]; e !== undefined; e = b[++k]) {
        if (e === COMMA || e === CLOSE_SQUARE || e === CLOSE_CURLY || isSpace(e)) break;
        if (e === QUOTE || e === OPEN_SQUARE || e === OPEN_CURLY || e === COLON) throw GIVE_UP;
      }
      if (k === this.i) throw GIVE_UP;
      this.i = k;
    }
  }

  document(): void {
    this.expect(OPEN_CURLY);
    let sawInputs = false;
    if (this.ws() === CLOSE_CURLY) throw GIVE_UP; // no inputs: the old path says so
    for (;;) {
      this.ws();
      const key = this.stringBytes(false);
      this.expect(COLON);
      if (key.escaped) throw GIVE_UP;
      if (this.keyIs(key.from, key.to, 'inputs')) {
        if (sawInputs) throw GIVE_UP;
        sawInputs = true;
        this.inputs();
      } else if (this.keyIs(key.from, key.to, 'outputs') && this.ws() === OPEN_SQUARE) {
        this.skipOutputs();
      } else {
        this.skipValue(2);
      }
      const d = this.ws();
      this.i++;
      if (d === CLOSE_CURLY) break;
      if (d !== COMMA) throw GIVE_UP;
    }
    if (this.ws() !== undefined) throw GIVE_UP;
  }

  /**
   * Past the `outputs` array at `i`, its elements counted without reading them (JSON.parse of the
   * rest still judges what is inside); refused at the first element past MAX_TENSORS.
   */
  private skipOutputs(): void {
    const { end } = commasToClose(this.b, this.i + 1, MAX_TENSORS - 1);
    if (end === STOPPED) throw tooManyTensors(null, 'outputs');
    if (end === -1) throw GIVE_UP;
    this.i = end;
  }

  private inputs(): void {
    if (this.ws() !== OPEN_SQUARE) {
      this.skipValue(2);
      return;
    }
    this.i++;
    if (this.ws() === CLOSE_SQUARE) {
      this.i++;
      return;
    }
    for (let index = 0; ; index++) {
      if (this.ws() === OPEN_CURLY) this.input(index);
      else this.skipValue(3);
      const d = this.ws();
      this.i++;
      if (d === CLOSE_SQUARE) return;
      if (d !== COMMA) throw GIVE_UP;
      if (index + 1 === MAX_TENSORS) {
        // One more than the limit follows: the body is refused here, the rest unread and its
        // tensors unmade.
        throw tooManyTensors(null, 'inputs');
      }
    }
  }

  private input(index: number): void {
    this.i++; // {
    const state: InputState = {
      datatype: undefined,
      elements: undefined,
      sawDatatype: false,
      sawData: false,
    };
    if (this.ws() === CLOSE_CURLY) {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      const key = this.stringBytes(false);
      this.expect(COLON);
      if (key.escaped) throw GIVE_UP;
      if (this.keyIs(key.from, key.to, 'datatype')) {
        if (state.sawDatatype) throw GIVE_UP;
        state.sawDatatype = true;
        this.ws();
        const v = this.stringBytes(true);
        const name = this.text(v.from, v.to);
        state.datatype = isDatatype(name) ? name : undefined;
      } else if (this.keyIs(key.from, key.to, 'shape')) {
        state.elements = this.shape();
      } else if (this.keyIs(key.from, key.to, 'data')) {
        if (state.sawData || state.datatype === undefined) throw GIVE_UP;
        state.sawData = true;
        this.ws();
        const start = this.i;
        this.tensors.set(index, this.data(state.datatype, state.elements));
        this.cuts.push(start, this.i);
      } else {
        this.skipValue(4);
      }
      const d = this.ws();
      this.i++;
      if (d === CLOSE_CURLY) return;
      if (d !== COMMA) throw GIVE_UP;
    }
  }

  /** A shape of plain integers: its element count, to size the tensor; else undefined. */
  private shape(): number | undefined {
    const start = this.i;
    this.skipValue(4);
    const text = this.text(start, this.i).trim();
    if (!/^\[\s*\d+(\s*,\s*\d+)*\s*\]$/.test(text)) return undefined;
    let n = 1;
    for (const d of text.slice(1, -1).split(',')) n *= Number(d);
    // Each element takes at least two bytes of text ("0,"): a bigger claim is not trusted.
    return Number.isSafeInteger(n) && n <= this.b.length / 2 + 1 ? n : undefined;
  }

  /**
   * A regular, non-empty nested array into a sink: every array at one depth has the length of the
   * first, every element sits at the same depth (the first element's), and no array is empty.
   */
  private data(datatype: Datatype, elements: number | undefined): ScannedTensor {
    if (!HOST_LITTLE_ENDIAN) throw GIVE_UP;
    const sink = new TensorSink(DATATYPE_TABLE[datatype], elements ?? 0);
    if (this.b[this.i] !== OPEN_SQUARE) throw GIVE_UP;
    const extents: number[] = [];
    let leafDepth = -1;
    const b = this.b;
    const cursor = this.cursor;
    // The data array is the 4th open bracket: `{ "inputs": [ { "data": [`; depth counts from it.
    const walk = (depth: number): void => {
      if (4 + depth > MAX_JSON_DEPTH) throw GIVE_UP;
      this.i++; // [
      let length = 0;
      let c = this.ws();
      if (c === CLOSE_SQUARE) throw GIVE_UP; // empty: the old path
      for (;;) {
        if (c === OPEN_SQUARE) {
          if (leafDepth !== -1 && depth + 1 >= leafDepth + 1) throw GIVE_UP;
          walk(depth + 1);
        } else {
          if (leafDepth === -1) leafDepth = depth;
          else if (leafDepth !== depth) throw GIVE_UP;
          if (c === QUOTE) {
            const s = this.stringBytes(false);
            sink.string(this.stringValue(s.from, s.to, s.escaped));
          } else if (c === 0x74 && this.word('true')) {
            sink.bool(true);
          } else if (c === 0x66 && this.word('false')) {
            sink.bool(false);
          } else {
            const x = readNumber(b, this.i, cursor, this.text);
            if (cursor.end === -1) throw GIVE_UP;
            this.i = cursor.end;
            sink.number(x);
          }
        }
        length++;
        c = this.ws();
        if (c === COMMA) {
          this.i++;
          c = this.ws();
          continue;
        }
        if (c !== CLOSE_SQUARE) throw GIVE_UP;
        this.i++;
        break;
      }
      const want = extents[depth];
      if (want === undefined) extents[depth] = length;
      else if (want !== length) throw GIVE_UP;
    };
    walk(0);
    // Arrays below the leaf depth were refused as they came; the first chain reaches it exactly.
    if (extents.length !== leafDepth + 1) throw GIVE_UP;
    return sink.finish();
  }

  private word(w: string): boolean {
    for (let k = 0; k < w.length; k++) if (this.b[this.i + k] !== w.charCodeAt(k)) return false;
    this.i += w.length;
    return true;
  }

  /** A BYTES element: raw bytes when plain ASCII, else JSON.parse of the token (exact). */
  private stringValue(from: number, to: number, escaped: boolean): Uint8Array | string {
    const b = this.b;
    let ascii = !escaped;
    for (let k = from; k < to; k++) {
      const c = b[k] as number;
      if (c < 0x20) throw GIVE_UP; // a raw control character: JSON.parse refuses it
      if (c >= 0x80) ascii = false;
    }
    if (ascii) return b.subarray(from, to);
    const token = Buffer.from(b.buffer, b.byteOffset + from - 1, to - from + 2).toString('utf8');
    try {
      return JSON.parse(token) as string;
    } catch {
      throw GIVE_UP;
    }
  }
}

/**
 * Scans a JSON request body. Returns the inputs' decoded `data` and the rest of the document, or
 * undefined when the body needs the old path (see the header).
 */
export function scanJsonBody(body: Uint8Array): ScannedBody | undefined {
  const scanner = new Scanner(body);
  try {
    scanner.document();
  } catch (e) {
    if (e instanceof GiveUp) return undefined;
    throw e;
  }
  const cuts = scanner.cuts;
  if (cuts.length === 0) return { rest: body, tensors: scanner.tensors };
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (let k = 0; k < cuts.length; k += 2) {
    pieces.push(body.subarray(at, cuts[k]), ZERO_TEXT);
    at = cuts[k + 1] as number;
  }
  pieces.push(body.subarray(at));
  return { rest: Buffer.concat(pieces), tensors: scanner.tensors };
}

const ZERO_TEXT = new Uint8Array([0x30]);
