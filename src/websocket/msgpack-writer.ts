// Writes the server's msgpack frames (a response, a repository answer or an error map) in one pass, in the smallest
// formats msgpack allows, with the request id echoed byte for byte.
//
// Why not msgpackr here: the id must come back in the very format it arrived in (a uint 64, an
// int 8, a float 64, a str 16...), and msgpackr re-encodes every value it packs (it writes an
// integer from 2^32 up as a float 64). The frames have one fixed shape, so writing them by hand is
// short, and each tensor payload is still copied exactly once.
//
// Memory: like msgpackr, small frames are carved out of a shared slab (a fresh buffer per frame
// costs more than encoding one), and the slab is only ever appended to, so a frame handed to a
// socket is never overwritten. A frame that could exceed SLAB_BYTES / 4 gets a buffer of its own.

import { Buffer } from 'node:buffer';
import type { WireError } from '../errors.js';
import type { InferenceResponse } from '../protocol/inference-request.js';
import type { FrameId } from './frame-id.js';
import type { RepositoryAnswer, SharedMemoryAnswerFrame } from './ws-frames.js';

const SLAB_BYTES = 64 * 1024;

/** A map key (short ASCII) as a fixstr, encoded once. */
const key = (name: string): Buffer => Buffer.from([0xa0 | name.length, ...Buffer.from(name)]);
const KEY = {
  id: key('id'),
  modelName: key('model_name'),
  modelVersion: key('model_version'),
  outputs: key('outputs'),
  name: key('name'),
  datatype: key('datatype'),
  shape: key('shape'),
  data: key('data'),
  error: key('error'),
  code: key('code'),
  message: key('message'),
  retryAfterMs: key('retry_after_ms'),
  type: key('type'),
  models: key('models'),
  version: key('version'),
  state: key('state'),
  reason: key('reason'),
  final: key('final'),
  parameters: key('parameters'),
  regions: key('regions'),
  key: key('key'),
  offset: key('offset'),
  byteSize: key('byte_size'),
};

/** msgpack false / true, the value of a decoupled request's `final` key. */
const BOOL = [Uint8Array.of(0xc2), Uint8Array.of(0xc3)] as const;

/** Most bytes a string can take: 3 UTF-8 bytes per UTF-16 unit, plus a str 32 header. */
const strBound = (s: string): number => s.length * 3 + 5;

class FrameWriter {
  #slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  #slabAt = 0;
  out: Buffer = this.#slab;
  at = 0;
  #start = 0;

  /** Makes room for a frame of at most `bound` bytes. */
  begin(bound: number): void {
    if (bound > SLAB_BYTES / 4) {
      this.out = Buffer.allocUnsafeSlow(bound);
      this.#start = 0;
    } else {
      if (this.#slabAt + bound > SLAB_BYTES) {
        this.#slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
        this.#slabAt = 0;
      }
      this.out = this.#slab;
      this.#start = this.#slabAt;
    }
    this.at = this.#start;
  }

  /** The frame just written; the slab moves past it (8-aligned, as msgpackr does). */
  end(): Uint8Array {
    const frame = this.out.subarray(this.#start, this.at);
    if (this.out === this.#slab) this.#slabAt = (this.at + 7) & ~7;
    return frame;
  }

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

  fixmap(n: number): void {
    this.out[this.at++] = 0x80 | n;
  }

  array(n: number): void {
    if (n < 16) this.out[this.at++] = 0x90 | n;
    else this.#sized(n, 0xdc, 0xdd);
  }

  str(text: string): void {
    const n = text.length;
    // The common case, short ASCII (names, datatypes, versions): one loop, no UTF-8 encoder.
    if (n < 32) {
      const out = this.out;
      const at = this.at;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) break;
        out[at + 1 + i] = c;
      }
      if (i === n) {
        out[at] = 0xa0 | n;
        this.at = at + 1 + n;
        return;
      }
    }
    const bytes = Buffer.byteLength(text);
    if (bytes < 32) this.out[this.at++] = 0xa0 | bytes;
    else if (bytes < 0x100) {
      this.out[this.at++] = 0xd9;
      this.out[this.at++] = bytes;
    } else this.#sized(bytes, 0xda, 0xdb);
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

  /** Bytes that are already msgpack (keys, an echoed id). */
  raw(bytes: Uint8Array): void {
    const n = bytes.byteLength;
    if (n <= 16) {
      // set() costs more than a loop for a handful of bytes.
      for (let i = 0; i < n; i++) this.out[this.at + i] = bytes[i] as number;
    } else this.out.set(bytes, this.at);
    this.at += n;
  }

  id(id: FrameId | null): void {
    this.raw(KEY.id);
    if (id === null) this.out[this.at++] = 0xc0;
    else if (id.msgpack !== undefined) this.raw(id.msgpack);
    else if (typeof id.key === 'string') this.str(id.key);
    else this.uint(id.key);
  }
}

const writer = new FrameWriter();

function idBound(id: FrameId | null): number {
  if (id === null) return 1;
  if (id.msgpack !== undefined) return id.msgpack.byteLength;
  return typeof id.key === 'string' ? strBound(id.key) : 9;
}

/** `{id, model_name, model_version, outputs: [{name, datatype, shape, data}]}`; data as `bin`. */
export function writeResponseFrame(id: FrameId, r: InferenceResponse): Uint8Array {
  let bound = 64 + idBound(id) + strBound(r.model_name) + strBound(r.model_version);
  for (const o of r.outputs) {
    bound += 48 + strBound(o.name) + strBound(o.datatype) + 9 * o.shape.length;
    bound += o.data.byteLength;
    if (o.inSharedMemory === true) bound += regionParametersBound(o.parameters ?? {});
  }
  // A decoupled model's responses carry `final` (docs/websocket-protocol.md, "Decoupled models").
  const final = r.parameters?.triton_final_response;
  const w = writer;
  w.begin(bound);
  w.fixmap(typeof final === 'boolean' ? 5 : 4);
  w.id(id);
  if (typeof final === 'boolean') {
    w.raw(KEY.final);
    w.raw(BOOL[final ? 1 : 0]);
  }
  w.raw(KEY.modelName);
  w.str(r.model_name);
  w.raw(KEY.modelVersion);
  w.str(r.model_version);
  w.raw(KEY.outputs);
  w.array(r.outputs.length);
  for (const o of r.outputs) {
    w.fixmap(4);
    w.raw(KEY.name);
    w.str(o.name);
    w.raw(KEY.datatype);
    w.str(o.datatype);
    w.raw(KEY.shape);
    w.array(o.shape.length);
    for (const d of o.shape) w.uint(d);
    if (o.inSharedMemory === true) {
      // Written into a region: its shared_memory_* parameters say where, and there is no data.
      regionParameters(w, o.parameters ?? {});
    } else {
      w.raw(KEY.data);
      w.bin(o.data);
    }
  }
  return w.end();
}

/**
 * `{id, type}`, plus `models: [{name, version?, state?, reason?}]` for the index: a row's members
 * are those the data plane gave, as in Triton's JSON index (a model never loaded has a name only).
 */
export function writeRepositoryFrame(id: FrameId, answer: RepositoryAnswer): Uint8Array {
  const models = answer.kind === 'repository_index' ? answer.models : undefined;
  let bound = 48 + idBound(id) + strBound(answer.kind);
  for (const m of models ?? []) {
    bound += 48 + strBound(m.name);
    for (const v of [m.version, m.state, m.reason]) if (v !== undefined) bound += strBound(v);
  }
  const w = writer;
  w.begin(bound);
  w.fixmap(models === undefined ? 2 : 3);
  w.id(id);
  w.raw(KEY.type);
  w.str(answer.kind);
  if (models !== undefined) {
    w.raw(KEY.models);
    w.array(models.length);
    for (const m of models) {
      const fields = (
        [
          [KEY.version, m.version],
          [KEY.state, m.state],
          [KEY.reason, m.reason],
        ] as const
      ).filter((f): f is readonly [Buffer, string] => f[1] !== undefined);
      w.fixmap(1 + fields.length);
      w.raw(KEY.name);
      w.str(m.name);
      for (const [k, v] of fields) {
        w.raw(k);
        w.str(v);
      }
    }
  }
  return w.end();
}

function regionParametersBound(params: Readonly<Record<string, unknown>>): number {
  let bound = 16;
  for (const [k, v] of Object.entries(params)) bound += strBound(k) + strBound(String(v)) + 9;
  return bound;
}

/**
 * `parameters: {shared_memory_region: str, shared_memory_byte_size: uint,
 * shared_memory_offset?: uint}` of an output written into a region (data-plane.ts makes them).
 */
function regionParameters(w: FrameWriter, params: Readonly<Record<string, unknown>>): void {
  const keys = Object.keys(params);
  w.raw(KEY.parameters);
  w.fixmap(keys.length);
  for (const k of keys) {
    const v = params[k];
    w.str(k);
    if (typeof v === 'number') w.uint(v);
    else w.str(String(v));
  }
}

/**
 * `{id, type}`, plus `regions: [{name, key, offset, byte_size}]` for shm_status: the rows of
 * `GET /v2/systemsharedmemory/status`.
 */
export function writeSharedMemoryFrame(id: FrameId, answer: SharedMemoryAnswerFrame): Uint8Array {
  const regions = answer.kind === 'shm_status' ? answer.regions : undefined;
  let bound = 48 + idBound(id) + strBound(answer.kind);
  for (const r of regions ?? []) bound += 64 + strBound(r.name) + strBound(r.key);
  const w = writer;
  w.begin(bound);
  w.fixmap(regions === undefined ? 2 : 3);
  w.id(id);
  w.raw(KEY.type);
  w.str(answer.kind);
  if (regions !== undefined) {
    w.raw(KEY.regions);
    w.array(regions.length);
    for (const r of regions) {
      w.fixmap(4);
      w.raw(KEY.name);
      w.str(r.name);
      w.raw(KEY.key);
      w.str(r.key);
      w.raw(KEY.offset);
      w.uint(r.offset);
      w.raw(KEY.byteSize);
      w.uint(r.byte_size);
    }
  }
  return w.end();
}

/** `{id, error: {code, message}}`; `id` is nil when the refused frame had no usable id. */
export function writeErrorFrame(id: FrameId | null, error: WireError, final?: boolean): Uint8Array {
  const w = writer;
  w.begin(72 + idBound(id) + strBound(error.code) + strBound(error.message));
  w.fixmap(final === undefined ? 2 : 3);
  w.id(id);
  if (final !== undefined) {
    w.raw(KEY.final);
    w.raw(BOOL[final ? 1 : 0]);
  }
  w.raw(KEY.error);
  const retryMs = error.retryAfterMs;
  w.fixmap(retryMs === undefined ? 2 : 3);
  w.raw(KEY.code);
  w.str(error.code);
  w.raw(KEY.message);
  w.str(error.message);
  if (retryMs !== undefined) {
    w.raw(KEY.retryAfterMs);
    w.uint(retryMs);
  }
  return w.end();
}
