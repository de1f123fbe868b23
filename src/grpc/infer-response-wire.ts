// `ModelInferResponse` and `ModelStreamInferResponse` -> bytes, encoded by hand: sizes first, then
// one buffer written once. protobufjs (through proto-loader) ran `fromObject`, which copies every
// output's bytes, then an encoder that copies them again; here each output's bytes are copied
// once, into the message. Field numbers are grpc_service.proto's; empty strings and empty repeated
// fields are left out, as proto3 writers do.

import type { InferParameter, ModelInferResponse } from './infer-codec.js';
import type { ModelStreamInferResponse } from './stream-session.js';

const BYTES = 2;
const VARINT = 0;
const FIXED64 = 1;

const tag = (field: number, wire: number): number => field * 8 + wire;

/**
 * Strings this short are measured and copied in JavaScript when they are ASCII (model names, ids,
 * output names, datatypes: nearly all of them): Buffer.byteLength and buf.write each cross into
 * C++, which for a name of a few bytes costs more than the loop, and a response has five or more.
 */
const SHORT_STRING = 64;

/** UTF-8 byte length of `s`. */
function utf8Length(s: string): number {
  const n = s.length;
  if (n > SHORT_STRING) return Buffer.byteLength(s);
  for (let i = 0; i < n; i += 1) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s);
  return n;
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size += 1;
  }
  return size;
}

/** Bytes of a length-delimited field holding `len` bytes (tag < 128 for every field here). */
const delimitedSize = (len: number): number => 1 + varintSize(len) + len;

class Writer {
  at = 0;
  constructor(readonly buf: Buffer) {}

  varint(n: number): void {
    const { buf } = this;
    while (n >= 128) {
      buf[this.at++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    buf[this.at++] = n;
  }

  /** A signed 64-bit value: negative ones as the 10-byte two's complement protobuf sends. */
  int64(n: number): void {
    if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
      this.varint(n);
      return;
    }
    let v = BigInt.asUintN(64, BigInt(n));
    while (v >= 128n) {
      this.buf[this.at++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.at++] = Number(v);
  }

  string(field: number, s: string, len: number): void {
    if (len === 0) return;
    this.varint(tag(field, BYTES));
    this.varint(len);
    this.utf8(s, len);
  }

  /** `s`, of `len` UTF-8 bytes (utf8Length's), at the write position. */
  utf8(s: string, len: number): void {
    if (len === s.length && len <= SHORT_STRING) {
      const { buf } = this;
      let at = this.at;
      for (let i = 0; i < len; i += 1) buf[at++] = s.charCodeAt(i);
      this.at = at;
      return;
    }
    this.at += this.buf.write(s, this.at, len, 'utf8');
  }

  bytes(field: number, b: Uint8Array): void {
    this.varint(tag(field, BYTES));
    this.varint(b.byteLength);
    this.buf.set(b, this.at);
    this.at += b.byteLength;
  }

  header(field: number, len: number): void {
    this.varint(tag(field, BYTES));
    this.varint(len);
  }
}

function int64Size(n: number): number {
  return n >= 0 && n <= Number.MAX_SAFE_INTEGER ? varintSize(n) : 10;
}

const strSize = (len: number): number => (len === 0 ? 0 : delimitedSize(len));

/** The one member of an InferParameter that is set, and its value. */
function chosen(p: InferParameter): [field: number, value: boolean | number | string] {
  const c = p.parameter_choice;
  if ((c === undefined || c === 'bool_param') && p.bool_param !== undefined) {
    return [1, p.bool_param];
  }
  if ((c === undefined || c === 'int64_param') && p.int64_param !== undefined) {
    return [2, Number(p.int64_param)];
  }
  if ((c === undefined || c === 'string_param') && p.string_param !== undefined) {
    return [3, p.string_param];
  }
  if ((c === undefined || c === 'double_param') && p.double_param !== undefined) {
    return [4, p.double_param];
  }
  if (p.uint64_param !== undefined) return [5, Number(p.uint64_param)];
  return [0, 0];
}

/** A parameter map, measured once and written from the measure. */
class ParameterMap {
  /** The map of a response or output that sets no parameter: most of them, so one serves all. */
  static readonly EMPTY = new ParameterMap(undefined);

  static of(params: Readonly<Record<string, InferParameter>> | undefined): ParameterMap {
    for (const key in params) if (Object.hasOwn(params, key)) return new ParameterMap(params);
    return ParameterMap.EMPTY;
  }

  private readonly entries: {
    key: string;
    keyLen: number;
    field: number;
    value: boolean | number | string;
    valueLen: number;
    paramSize: number;
    entrySize: number;
  }[] = [];
  /** Bytes of every entry, each as a field of number `field` of the enclosing message. */
  readonly size: number;

  private constructor(params: Readonly<Record<string, InferParameter>> | undefined) {
    let size = 0;
    for (const key in params) {
      const [field, value] = chosen(params[key] as InferParameter);
      let valueLen = 0;
      let paramSize = 0;
      if (field === 1) paramSize = 2;
      else if (field === 2 || field === 5) paramSize = 1 + int64Size(value as number);
      else if (field === 3) {
        valueLen = utf8Length(value as string);
        paramSize = delimitedSize(valueLen);
      } else if (field === 4) paramSize = 9;
      const keyLen = utf8Length(key);
      const entrySize = strSize(keyLen) + delimitedSize(paramSize);
      this.entries.push({ key, keyLen, field, value, valueLen, paramSize, entrySize });
      size += delimitedSize(entrySize);
    }
    this.size = size;
  }

  write(w: Writer, mapField: number): void {
    for (const e of this.entries) {
      w.header(mapField, e.entrySize);
      w.string(1, e.key, e.keyLen);
      w.header(2, e.paramSize);
      switch (e.field) {
        case 1:
          w.varint(tag(1, VARINT));
          w.varint(e.value === true ? 1 : 0);
          break;
        case 2:
        case 5:
          w.varint(tag(e.field, VARINT));
          w.int64(e.value as number);
          break;
        case 3:
          w.varint(tag(3, BYTES));
          w.varint(e.valueLen);
          w.utf8(e.value as string, e.valueLen);
          break;
        case 4:
          w.varint(tag(4, FIXED64));
          w.at = w.buf.writeDoubleLE(e.value as number, w.at);
          break;
      }
    }
  }
}

interface OutputSizes {
  readonly nameLen: number;
  readonly datatypeLen: number;
  readonly shapeLen: number;
  readonly params: ParameterMap;
  readonly size: number;
}

/** A ModelInferResponse measured: its total size and what writing it needs. */
class MeasuredResponse {
  readonly nameLen: number;
  readonly versionLen: number;
  readonly idLen: number;
  readonly params: ParameterMap;
  readonly outputs: OutputSizes[] = [];
  readonly size: number;

  constructor(readonly r: Partial<ModelInferResponse>) {
    this.nameLen = utf8Length(r.model_name ?? '');
    this.versionLen = utf8Length(r.model_version ?? '');
    this.idLen = utf8Length(r.id ?? '');
    this.params = ParameterMap.of(r.parameters);
    let size = strSize(this.nameLen) + strSize(this.versionLen) + strSize(this.idLen);
    size += this.params.size;
    for (const o of r.outputs ?? []) {
      const nameLen = utf8Length(o.name);
      const datatypeLen = utf8Length(o.datatype);
      let shapeLen = 0;
      for (const d of o.shape) shapeLen += int64Size(d);
      const params = ParameterMap.of(o.parameters);
      const inner =
        strSize(nameLen) +
        strSize(datatypeLen) +
        (o.shape.length > 0 ? delimitedSize(shapeLen) : 0) +
        params.size;
      this.outputs.push({ nameLen, datatypeLen, shapeLen, params, size: inner });
      size += delimitedSize(inner);
    }
    for (const b of r.raw_output_contents ?? []) size += delimitedSize(b.byteLength);
    this.size = size;
  }

  write(w: Writer): void {
    const r = this.r;
    w.string(1, r.model_name ?? '', this.nameLen);
    w.string(2, r.model_version ?? '', this.versionLen);
    w.string(3, r.id ?? '', this.idLen);
    this.params.write(w, 4);
    const outputs = r.outputs ?? [];
    for (let i = 0; i < outputs.length; i += 1) {
      const o = outputs[i] as ModelInferResponse['outputs'][number];
      const s = this.outputs[i] as OutputSizes;
      w.header(5, s.size);
      w.string(1, o.name, s.nameLen);
      w.string(2, o.datatype, s.datatypeLen);
      if (o.shape.length > 0) {
        w.header(3, s.shapeLen);
        for (const d of o.shape) w.int64(d);
      }
      s.params.write(w, 4);
    }
    for (const b of r.raw_output_contents ?? []) w.bytes(6, b);
  }
}

/**
 * The message's bytes; with `reserve`, behind that many bytes left for the caller (gRPC's message
 * prefix, so a framed answer needs no second copy).
 */
export function encodeModelInferResponse(r: ModelInferResponse, reserve = 0): Buffer {
  const m = new MeasuredResponse(r);
  const w = new Writer(Buffer.allocUnsafe(reserve + m.size));
  w.at = reserve;
  m.write(w);
  return w.buf;
}

/** The stream answer's bytes; `reserve` as for encodeModelInferResponse. */
export function encodeModelStreamInferResponse(s: ModelStreamInferResponse, reserve = 0): Buffer {
  const m = new MeasuredResponse(s.infer_response);
  const errorLen = utf8Length(s.error_message);
  const w = new Writer(Buffer.allocUnsafe(reserve + strSize(errorLen) + delimitedSize(m.size)));
  w.at = reserve;
  w.string(1, s.error_message, errorLen);
  w.header(2, m.size);
  m.write(w);
  return w.buf;
}
