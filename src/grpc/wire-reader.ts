// A cursor over protobuf wire-format bytes (tags, varints, fixed-width numbers, length-delimited
// fields), for the hand-written ModelInfer codec. Every malformed input throws a WireError, which
// the codec's callers turn into the status grpc-js gives an undecodable message.

/** Bytes that are not the message they claim to be. */
export class WireError extends Error {}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

/** This host stores numbers little-endian, as the wire does (x86-64, arm64). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class WireReader {
  at: number;

  constructor(
    readonly buf: Buffer,
    from = 0,
    readonly end = buf.length,
  ) {
    this.at = from;
  }

  get done(): boolean {
    return this.at >= this.end;
  }

  /** An unsigned varint of up to 53 bits, exactly (tags, lengths, int32 and uint32 fields). */
  varint(): number {
    const { buf, end } = this;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i += 1) {
      if (this.at >= end) throw new WireError('a varint runs past the end of its message');
      const b = buf[this.at++] as number;
      if (scale < 2 ** 53) value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new WireError('a varint is longer than 10 bytes');
  }

  /** A 64-bit varint as a BigInt of its 64 bits (read exactly, unlike `varint`). */
  varint64(): bigint {
    const { buf, end } = this;
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i += 1) {
      if (this.at >= end) throw new WireError('a varint runs past the end of its message');
      const b = buf[this.at++] as number;
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, value);
      shift += 7n;
    }
    throw new WireError('a varint is longer than 10 bytes');
  }

  /** int64 as proto-loader's `longs: String` gives it: exact decimal digits. */
  int64String(): string {
    const start = this.at;
    const n = this.varint();
    // Up to 7 bytes is at most 49 bits: a non-negative number, exact as it is.
    if (this.at - start <= 7) return String(n);
    this.at = start;
    return BigInt.asIntN(64, this.varint64()).toString();
  }

  /** uint64 as exact decimal digits. */
  uint64String(): string {
    const start = this.at;
    const n = this.varint();
    if (this.at - start <= 7) return String(n);
    this.at = start;
    return this.varint64().toString();
  }

  /** int32: the low 32 bits, signed (negative values arrive sign-extended to 10 bytes). */
  int32(): number {
    const start = this.at;
    const n = this.varint();
    if (this.at - start <= 4) return n | 0;
    this.at = start;
    return Number(BigInt.asIntN(32, this.varint64()));
  }

  /** uint32: the low 32 bits. */
  uint32(): number {
    const start = this.at;
    const n = this.varint();
    if (this.at - start <= 4) return n >>> 0;
    this.at = start;
    return Number(BigInt.asUintN(32, this.varint64()));
  }

  float(): number {
    this.need(4);
    const v = this.buf.readFloatLE(this.at);
    this.at += 4;
    return v;
  }

  double(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.at);
    this.at += 8;
    return v;
  }

  /**
   * A packed run of little-endian floats (width 4) or doubles (width 8), whose length comes next,
   * as a new array. The run is copied once into a typed array and read from there: typed
   * contents of a tensor are hundreds of elements or more, and `readFloatLE` at unaligned offsets
   * costs about 30 ns an element on Node 20 (4× the copy and read).
   */
  packedFloats(width: 4 | 8): number[] {
    const end = this.lengthEnd();
    const len = end - this.at;
    if (len % width !== 0) throw new WireError('a packed field runs past its length');
    const run = this.buf.subarray(this.at, end);
    const n = len / width;
    const out = new Array<number>(n);
    if (LITTLE_ENDIAN) {
      const values = width === 4 ? new Float32Array(n) : new Float64Array(n);
      new Uint8Array(values.buffer).set(run);
      for (let i = 0; i < n; i += 1) out[i] = values[i] as number;
    } else {
      const view = new DataView(run.buffer, run.byteOffset, len);
      for (let i = 0; i < n; i += 1)
        out[i] = width === 4 ? view.getFloat32(i * 4, true) : view.getFloat64(i * 8, true);
    }
    this.at = end;
    return out;
  }

  /** The end offset of a length-delimited field whose length comes next. */
  lengthEnd(): number {
    const len = this.varint();
    const to = this.at + len;
    if (to > this.end) throw new WireError('a field runs past the end of its message');
    return to;
  }

  /** A length-delimited field's bytes, as a view of the message (no copy). */
  bytes(): Buffer {
    const to = this.lengthEnd();
    const view = this.buf.subarray(this.at, to);
    this.at = to;
    return view;
  }

  string(): string {
    const to = this.lengthEnd();
    const s = this.buf.toString('utf8', this.at, to);
    this.at = to;
    return s;
  }

  /** A reader over the embedded message that comes next; this one moves past it. */
  message(): WireReader {
    const to = this.lengthEnd();
    const inner = new WireReader(this.buf, this.at, to);
    this.at = to;
    return inner;
  }

  /** Skips a field of an unknown number by its wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.need(8);
        this.at += 8;
        return;
      case WIRE_BYTES:
        this.at = this.lengthEnd();
        return;
      case WIRE_FIXED32:
        this.need(4);
        this.at += 4;
        return;
      default:
        throw new WireError(`wire type ${wireType} is not used by these messages`);
    }
  }

  private need(n: number): void {
    if (this.at + n > this.end) throw new WireError('a field runs past the end of its message');
  }
}

/** A tag's field number and wire type. */
export function tagField(tag: number): number {
  return Math.floor(tag / 8);
}

export function tagWireType(tag: number): number {
  return tag % 8;
}
