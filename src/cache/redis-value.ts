// The bytes of one Redis cache entry: a format header (magic + version), the entry's cache key (its
// SHA-256 digest, checked on read against the key looked up), then each output's name,
// datatype, shape and data. One layout, written and read only here. A replica of another format
// version finds a different magic or version byte and skips the entry rather than misread it.
//
//   magic "IFNC" (4) | version u8 | key length u32 | key bytes | output count u16 |
//   per output: name length u16 | name utf-8 | datatype length u8 | datatype ascii |
//               rank u8 | dims f64 x rank | data length f64 | data bytes
// Integers are little-endian. Dims and data lengths are f64 (exact below 2^53) so no size limit
// is baked into the format.

import { isDatatype } from '../tensor/datatypes.js';
import type { CacheKey } from './cache-key.js';
import type { CachedOutput, CachedResponse } from './cached-response.js';

/** "IFNC": an infernode cache value. */
export const VALUE_MAGIC = Uint8Array.of(0x49, 0x46, 0x4e, 0x43);
/** Bumped whenever the layout below changes (2: the key field holds the digest, not the key). */
export const VALUE_FORMAT_VERSION = 2;
const HEADER_BYTES = VALUE_MAGIC.byteLength + 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Thrown for a value with this format's header whose body does not parse: counted, skipped. */
export class CorruptValueError extends Error {}

/** The stored bytes of `value` under `key`. */
export function encodeValue(key: CacheKey, value: CachedResponse): Buffer {
  const names = value.outputs.map((o) => encoder.encode(o.name));
  let total = HEADER_BYTES + 4 + key.bytes.byteLength + 2;
  value.outputs.forEach((o, i) => {
    total += 2 + (names[i]?.byteLength ?? 0) + 1 + o.datatype.length + 1;
    total += 8 * o.shape.length + 8 + o.data.byteLength;
  });
  const out = Buffer.allocUnsafe(total);
  out.set(VALUE_MAGIC, 0);
  let at = VALUE_MAGIC.byteLength;
  at = out.writeUInt8(VALUE_FORMAT_VERSION, at);
  at = out.writeUInt32LE(key.bytes.byteLength, at);
  out.set(key.bytes, at);
  at += key.bytes.byteLength;
  at = out.writeUInt16LE(value.outputs.length, at);
  value.outputs.forEach((o, i) => {
    const name = names[i] ?? new Uint8Array(0);
    at = out.writeUInt16LE(name.byteLength, at);
    out.set(name, at);
    at += name.byteLength;
    at = out.writeUInt8(o.datatype.length, at);
    at += out.write(o.datatype, at, 'latin1');
    at = out.writeUInt8(o.shape.length, at);
    for (const d of o.shape) at = out.writeDoubleLE(d, at);
    at = out.writeDoubleLE(o.data.byteLength, at);
    out.set(o.data, at);
    at += o.data.byteLength;
  });
  return out;
}

/** True when `bytes` starts with this format's magic and version. */
export function isCurrentFormat(bytes: Uint8Array): boolean {
  if (bytes.byteLength < HEADER_BYTES) return false;
  for (let i = 0; i < VALUE_MAGIC.byteLength; i++) if (bytes[i] !== VALUE_MAGIC[i]) return false;
  return bytes[VALUE_MAGIC.byteLength] === VALUE_FORMAT_VERSION;
}

/**
 * The response stored in `bytes` for exactly `key`; undefined when the value is another format's
 * (another magic or version: skipped) or another key's (a digest that differs: a miss). Throws
 * CorruptValueError when this format's body does not parse.
 */
export function decodeValue(bytes: Buffer, key: CacheKey): CachedResponse | undefined {
  if (!isCurrentFormat(bytes)) return undefined;
  const reader = new Reader(bytes, HEADER_BYTES);
  const keyBytes = reader.bytes(reader.u32());
  const digest = Buffer.from(key.bytes.buffer, key.bytes.byteOffset, key.bytes.byteLength);
  if (!digest.equals(keyBytes)) return undefined;
  const count = reader.u16();
  const outputs: CachedOutput[] = [];
  let byteSize = 0;
  for (let i = 0; i < count; i++) {
    const name = reader.text(reader.u16());
    const datatype = reader.text(reader.u8());
    if (!isDatatype(datatype)) throw new CorruptValueError(`unknown datatype '${datatype}'`);
    const rank = reader.u8();
    const shape: number[] = [];
    for (let d = 0; d < rank; d++) shape.push(reader.length());
    // A private copy: the reply buffer is not kept alive by the answer.
    const data = Uint8Array.prototype.slice.call(reader.bytes(reader.length()));
    byteSize += data.byteLength;
    outputs.push({ name, datatype, shape, data });
  }
  if (reader.at !== bytes.byteLength) {
    throw new CorruptValueError(`${bytes.byteLength - reader.at} bytes after the last output`);
  }
  return { outputs, byteSize };
}

/** Bounds-checked reads over one value: a short or malformed body throws CorruptValueError. */
class Reader {
  constructor(
    private readonly buf: Buffer,
    public at: number,
  ) {}

  private take(n: number): number {
    if (n > this.buf.byteLength - this.at) {
      throw new CorruptValueError(`value truncated at byte ${this.at} (needs ${n} more)`);
    }
    const start = this.at;
    this.at += n;
    return start;
  }

  u8(): number {
    return this.buf.readUInt8(this.take(1));
  }

  u16(): number {
    return this.buf.readUInt16LE(this.take(2));
  }

  u32(): number {
    return this.buf.readUInt32LE(this.take(4));
  }

  /** A dimension or byte length: a non-negative integer stored as f64. */
  length(): number {
    const n = this.buf.readDoubleLE(this.take(8));
    if (!Number.isSafeInteger(n) || n < 0) throw new CorruptValueError(`bad length ${n}`);
    return n;
  }

  bytes(n: number): Buffer {
    const start = this.take(n);
    return this.buf.subarray(start, start + n);
  }

  text(n: number): string {
    try {
      return decoder.decode(this.bytes(n));
    } catch (e) {
      if (e instanceof CorruptValueError) throw e;
      throw new CorruptValueError('a name is not valid UTF-8');
    }
  }
}
