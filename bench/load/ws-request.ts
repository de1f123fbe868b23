// Request frames for the WebSocket generator, encoded once per payload, and the reading of a
// response frame's id and outcome. A request is the msgpack map the client library writes
// (src/client/client-codecs.ts) with its `id` as a fixed-width uint32, so each send only patches
// four bytes; a response is read no further than its `id` and the key after it.

import { Unpackr } from 'msgpackr';
import { msgpackClientCodec, tensorFromBytes } from 'infernode/tooling';
import type { InputSet } from '../model/input-data.js';
import { tensorBytes } from '../model/request-body.js';
import { clientFrameHeader, OPCODE } from './ws-framing.js';

/** A msgpack request with a placeholder id, and where the id's four bytes are. */
export interface WsRequestPayload {
  readonly bytes: Uint8Array;
  readonly idOffset: number;
}

/** The placeholder: msgpack writes it as uint32 (0xce + 4 bytes), the width every id then uses. */
const PLACEHOLDER_ID = 0xffffffff;
/** `"id": uint32` as msgpackr writes it: fixstr "id", then 0xce and the four placeholder bytes. */
const ID_ENTRY = [0xa2, 0x69, 0x64, 0xce, 0xff, 0xff, 0xff, 0xff];

export function wsRequestPayload(model: string, version: string, set: InputSet): WsRequestPayload {
  const tensors = set.map((t) => tensorFromBytes(t.name, t.datatype, t.shape, tensorBytes(t)));
  const bytes = msgpackClientCodec.encodeRequest(
    PLACEHOLDER_ID,
    model,
    tensors,
    version === '' ? {} : { version },
  );
  // The client codec writes `id` as the map's first entry, right after the map header.
  const mapHeader = bytes[0] === 0xde ? 3 : bytes[0] === 0xdf ? 5 : 1;
  const found = ID_ENTRY.every((b, i) => bytes[mapHeader + i] === b);
  if (!found) {
    const head = Buffer.from(bytes.subarray(0, 16)).toString('hex');
    throw new Error(`expected the request frame to start with its uint32 id, got ${head}…`);
  }
  return { bytes, idOffset: mapHeader + 4 };
}

/** A request as WebSocket frame bytes: header + msgpack, with the id's position in the whole. */
export class WsFrameTemplate {
  readonly frame: Buffer;
  readonly idAt: number;

  constructor(payload: WsRequestPayload) {
    const header = clientFrameHeader(OPCODE.binary, payload.bytes.byteLength);
    this.frame = Buffer.concat([header, payload.bytes]);
    this.idAt = header.length + payload.idOffset;
  }

  /**
   * The bytes to write for request `id`. Requests in flight share nothing mutable: a small frame is
   * copied whole and patched (one write of one buffer); a large one gets a fresh header up to and
   * including the id, and its unchanging tail is written from the template (two writes, which the
   * caller corks into one writev), so a large tensor is never copied per request.
   */
  bytesFor(id: number): [Buffer] | [Buffer, Buffer] {
    if (this.frame.length <= SMALL_FRAME) {
      const copy = Buffer.allocUnsafe(this.frame.length);
      this.frame.copy(copy);
      copy.writeUInt32BE(id, this.idAt);
      return [copy];
    }
    const head = Buffer.allocUnsafe(this.idAt + 4);
    this.frame.copy(head, 0, 0, this.idAt);
    head.writeUInt32BE(id, this.idAt);
    return [head, this.frame.subarray(this.idAt + 4)];
  }
}

/** Below this, copying the frame costs less than a second write. */
const SMALL_FRAME = 8192;

export interface WsReplyInfo {
  /** The request id, or undefined when the frame has no readable uint id. */
  readonly id: number | undefined;
  /** null for a success frame, else "CODE: message". */
  readonly error: string | null;
}

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/**
 * Fast path: the server writes `id` first and then either `error` or the success fields, so two
 * keys tell the outcome without decoding the outputs. Any other layout (a different server, a
 * reordered map) falls back to a full decode, so correctness never depends on the fast path.
 */
export function readReply(p: Buffer): WsReplyInfo {
  const first = p[0];
  if (first === undefined) return fullDecode(p);
  let at = (first & 0xf0) === 0x80 ? 1 : first === 0xde ? 3 : first === 0xdf ? 5 : 0;
  if (at > 0 && p[at] === 0xa2 && p[at + 1] === 0x69 && p[at + 2] === 0x64) {
    at += 3;
    const read = readUint(p, at);
    if (read === null) return fullDecode(p);
    at += read.size;
    // fixstr "error" (a5 65 72 72 6f 72) means failure; any other fixstr key means success.
    const k = p[at];
    if (k === 0xa5 && p.toString('latin1', at + 1, at + 6) === 'error') return fullDecode(p);
    if (k !== undefined && (k & 0xe0) === 0xa0) return { id: read.value, error: null };
  }
  return fullDecode(p);
}

/** A msgpack positive fixint / uint8 / uint16 / uint32 at `at`, or null for anything else. */
function readUint(p: Buffer, at: number): { value: number; size: number } | null {
  const t = p[at];
  if (t === undefined) return null;
  if (t < 0x80) return { value: t, size: 1 };
  if (t === 0xcc && at + 2 <= p.length) return { value: p[at + 1] as number, size: 2 };
  if (t === 0xcd && at + 3 <= p.length) return { value: p.readUInt16BE(at + 1), size: 3 };
  if (t === 0xce && at + 5 <= p.length) return { value: p.readUInt32BE(at + 1), size: 5 };
  return null;
}

function fullDecode(p: Buffer): WsReplyInfo {
  let doc: unknown;
  try {
    doc = unpackr.unpack(p);
  } catch (e) {
    return {
      id: undefined,
      error: `undecodable response: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  if (typeof doc !== 'object' || doc === null) {
    return { id: undefined, error: `a response must be a map, got ${typeof doc}` };
  }
  const d = doc as {
    id?: unknown;
    error?: { code?: unknown; message?: unknown };
    outputs?: unknown;
  };
  const id = typeof d.id === 'number' ? d.id : undefined;
  if (d.error !== undefined) {
    return { id, error: `${String(d.error.code)}: ${String(d.error.message)}` };
  }
  if (!Array.isArray(d.outputs)) return { id, error: 'a success response without outputs' };
  return { id, error: null };
}
