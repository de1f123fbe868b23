// Writes the server's msgpack frames (a response or an error map) into one buffer of exactly the
// frame's size, in the smallest formats msgpack allows, with the request id echoed byte for byte.
//
// Why not msgpackr here: the id must come back in the very format it arrived in (a uint 64, an
// int 8, a float 64, a str 16...), and msgpackr re-encodes every value it packs (it writes an
// integer from 2^32 up as a float 64). The frames have one fixed shape, so a measure pass then a
// write pass is short, and each tensor payload is still copied exactly once.

import { Buffer } from 'node:buffer';
import type { WireError } from '../errors.js';
import type { InferenceResponse } from '../protocol/inference-request.js';
import type { FrameId } from './frame-id.js';

/** What a frame is made of; run once to measure and once to write. */
interface Sink {
  map(entries: number): void;
  array(length: number): void;
  str(text: string): void;
  uint(value: number): void;
  bin(bytes: Uint8Array): void;
  /** Bytes that are already msgpack (an echoed id). */
  raw(bytes: Uint8Array): void;
  nil(): void;
}

class Measure implements Sink {
  size = 0;
  map(n: number): void {
    this.size += n < 16 ? 1 : n < 0x10000 ? 3 : 5;
  }
  array(n: number): void {
    this.size += n < 16 ? 1 : n < 0x10000 ? 3 : 5;
  }
  str(text: string): void {
    const n = Buffer.byteLength(text);
    this.size += n + (n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);
  }
  uint(v: number): void {
    this.size += v < 0x80 ? 1 : v < 0x100 ? 2 : v < 0x10000 ? 3 : v <= 0xffffffff ? 5 : 9;
  }
  bin(bytes: Uint8Array): void {
    const n = bytes.byteLength;
    this.size += n + (n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);
  }
  raw(bytes: Uint8Array): void {
    this.size += bytes.byteLength;
  }
  nil(): void {
    this.size += 1;
  }
}

class Write implements Sink {
  at = 0;
  constructor(readonly out: Buffer) {}
  /** A format byte, then `n` as a big-endian 16- or 32-bit length (msgpack's byte order). */
  #sized(n: number, format16: number, format32: number): void {
    if (n < 0x10000) {
      this.out[this.at] = format16;
      this.at = this.out.writeUInt16BE(n, this.at + 1);
    } else {
      this.out[this.at] = format32;
      this.at = this.out.writeUInt32BE(n, this.at + 1);
    }
  }
  map(n: number): void {
    if (n < 16) this.out[this.at++] = 0x80 | n;
    else this.#sized(n, 0xde, 0xdf);
  }
  array(n: number): void {
    if (n < 16) this.out[this.at++] = 0x90 | n;
    else this.#sized(n, 0xdc, 0xdd);
  }
  str(text: string): void {
    const n = Buffer.byteLength(text);
    if (n < 32) this.out[this.at++] = 0xa0 | n;
    else if (n < 0x100) {
      this.out[this.at++] = 0xd9;
      this.out[this.at++] = n;
    } else this.#sized(n, 0xda, 0xdb);
    this.at += this.out.write(text, this.at, 'utf8');
  }
  uint(v: number): void {
    if (v < 0x80) this.out[this.at++] = v;
    else if (v < 0x100) {
      this.out[this.at++] = 0xcc;
      this.out[this.at++] = v;
    } else if (v <= 0xffffffff) this.#sized(v, 0xcd, 0xce);
    else {
      this.out[this.at] = 0xcf;
      this.at = this.out.writeBigUInt64BE(BigInt(v), this.at + 1);
    }
  }
  bin(bytes: Uint8Array): void {
    const n = bytes.byteLength;
    if (n < 0x100) {
      this.out[this.at++] = 0xc4;
      this.out[this.at++] = n;
    } else this.#sized(n, 0xc5, 0xc6);
    this.raw(bytes);
  }
  raw(bytes: Uint8Array): void {
    this.out.set(bytes, this.at);
    this.at += bytes.byteLength;
  }
  nil(): void {
    this.out[this.at++] = 0xc0;
  }
}

/** Measures the frame, allocates it once, writes it. */
function frame(describe: (sink: Sink) => void): Uint8Array {
  const measure = new Measure();
  describe(measure);
  // allocUnsafe: every byte is written below. Small frames come from Node's pool.
  const write = new Write(Buffer.allocUnsafe(measure.size));
  describe(write);
  if (write.at !== measure.size) {
    throw new Error(`msgpack frame wrote ${write.at} bytes, measured ${measure.size}`);
  }
  return write.out;
}

function writeId(sink: Sink, id: FrameId | null): void {
  sink.str('id');
  if (id === null) sink.nil();
  else if (id.msgpack !== undefined) sink.raw(id.msgpack);
  else if (typeof id.key === 'string') sink.str(id.key);
  else sink.uint(id.key);
}

/** `{id, model_name, model_version, outputs: [{name, datatype, shape, data}]}`; data as `bin`. */
export function writeResponseFrame(id: FrameId, r: InferenceResponse): Uint8Array {
  return frame((sink) => {
    sink.map(4);
    writeId(sink, id);
    sink.str('model_name');
    sink.str(r.model_name);
    sink.str('model_version');
    sink.str(r.model_version);
    sink.str('outputs');
    sink.array(r.outputs.length);
    for (const o of r.outputs) {
      sink.map(4);
      sink.str('name');
      sink.str(o.name);
      sink.str('datatype');
      sink.str(o.datatype);
      sink.str('shape');
      sink.array(o.shape.length);
      for (const d of o.shape) sink.uint(d);
      sink.str('data');
      sink.bin(o.data);
    }
  });
}

/** `{id, error: {code, message}}`; `id` is nil when the refused frame had no usable id. */
export function writeErrorFrame(id: FrameId | null, error: WireError): Uint8Array {
  return frame((sink) => {
    sink.map(2);
    writeId(sink, id);
    sink.str('error');
    sink.map(2);
    sink.str('code');
    sink.str(error.code);
    sink.str('message');
    sink.str(error.message);
  });
}
