// Request messages for the gRPC generator (`-i grpc`), serialized and framed once per payload, and
// the reading of answers. A stream request carries its `id` as 8 hex digits, so each send patches
// those bytes in a copy; an answer is walked as protobuf just far enough to find `error_message`,
// `infer_response.id` and that outputs came back, never decoding its output tensors.

import type { InputSet } from '../model/input-data.js';
import { serializeInferRequest } from '../model/grpc-service.js';
import { tensorBytes } from '../model/request-body.js';
import { framedMessage, PREFIX_BYTES } from './grpc-frames.js';

/** A serialized ModelInferRequest; a stream's has a placeholder id at `idOffset` (else -1). */
export interface GrpcRequestPayload {
  readonly bytes: Uint8Array;
  readonly idOffset: number;
}

const ID_DIGITS = 8;
const PLACEHOLDER_ID = 'f'.repeat(ID_DIGITS);
/** Field 3 (`id`), wire type 2: tag 0x1a, then the length 8, then the placeholder's bytes. */
const ID_ENTRY = Buffer.from([0x1a, ID_DIGITS, ...Buffer.from(PLACEHOLDER_ID, 'latin1')]);

/** Inputs always go in `raw_input_contents`, as Triton's clients send them. */
export function grpcRequestPayload(
  model: string,
  version: string,
  set: InputSet,
  streaming: boolean,
  sharedMemory?: { readonly inputs: object[]; readonly outputs: object[] },
): GrpcRequestPayload {
  const bytes = serializeInferRequest({
    model_name: model,
    model_version: version,
    id: streaming ? PLACEHOLDER_ID : '',
    // --shared-memory system: the tensors name their regions and carry no raw contents.
    ...(sharedMemory !== undefined
      ? { inputs: sharedMemory.inputs, outputs: sharedMemory.outputs, raw_input_contents: [] }
      : {
          inputs: set.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
          raw_input_contents: set.map(tensorBytes),
        }),
  });
  if (!streaming) return { bytes, idOffset: -1 };
  // protobuf writes fields in number order, so `id` (3) comes right after the model's name and
  // version, before any tensor bytes could look like it.
  const at = bytes.indexOf(ID_ENTRY);
  if (at === -1) throw new Error('the serialized request does not hold its placeholder id');
  return { bytes, idOffset: at + 2 };
}

/** The request id as the stream sends it: 8 lowercase hex digits. */
export function streamId(id: number): string {
  return id.toString(16).padStart(ID_DIGITS, '0');
}

/** A stream request, framed once (gRPC prefix included), whose id is patched per send. */
export class GrpcStreamTemplate {
  private readonly framed: Buffer;
  private readonly idAt: number;

  constructor(payload: GrpcRequestPayload) {
    if (payload.idOffset < 0) throw new Error('a stream request needs a placeholder id');
    this.framed = framedMessage(payload.bytes);
    this.idAt = PREFIX_BYTES + payload.idOffset;
  }

  /**
   * The framed request with id `id`, in a copy: node:http2 holds a written buffer until the frame
   * leaves, so requests in flight must share nothing mutable.
   */
  bytesFor(id: number): Buffer {
    const copy = Buffer.allocUnsafe(this.framed.length);
    this.framed.copy(copy);
    copy.write(streamId(id), this.idAt, ID_DIGITS, 'latin1');
    return copy;
  }
}

/**
 * Why a `ModelInferResponse` is not a usable answer, or null when it is: at least one output, and
 * as many `raw_output_contents` (field 6) as `outputs` (field 5), as every server sends them for a
 * request that asked for no typed contents (less the outputs written into shared memory).
 */
export function checkInferReply(p: Buffer): string | null {
  let outputs = 0;
  let raw = 0;
  const ok = walk(p, 0, p.length, (field) => {
    if (field === 5) outputs += 1;
    else if (field === 6) raw += 1;
  });
  if (!ok) return 'an undecodable ModelInferResponse';
  if (outputs === 0 || (raw !== outputs && raw !== outputs - outputsInRegions(p))) {
    return `expected raw_output_contents for each output, got ${raw} for ${outputs} outputs`;
  }
  return null;
}

const SHM_REGION_KEY = Buffer.from('shared_memory_region');

/**
 * Outputs written into a shared-memory region (--shared-memory system), which have no raw
 * contents: those whose `parameters` (field 4, map entries with the key as field 1) name one.
 * Walked only when the counts differ, so a reply without regions costs nothing more.
 */
function outputsInRegions(p: Buffer): number {
  let n = 0;
  walk(p, 0, p.length, (field, start, end) => {
    if (field !== 5) return;
    let inRegion = false;
    walk(p, start, end, (f, s, e) => {
      if (f !== 4) return;
      walk(p, s, e, (k, ks, ke) => {
        if (k === 1 && p.subarray(ks, ke).equals(SHM_REGION_KEY)) inRegion = true;
      });
    });
    if (inRegion) n += 1;
  });
  return n;
}

export interface GrpcReplyInfo {
  /** The request id, or undefined when the answer has none this generator sent. */
  readonly id: number | undefined;
  /** null for a success; else the answer's error_message. */
  readonly error: string | null;
}

/**
 * `ModelStreamInferResponse { string error_message = 1; ModelInferResponse infer_response = 2 }`
 * and, inside, `string id = 3`. Fields may come in any order; unknown ones are skipped by wire type.
 */
export function readStreamReply(p: Buffer): GrpcReplyInfo {
  let error: string | null = null;
  let id: number | undefined;
  const top = walk(p, 0, p.length, (field, start, end) => {
    if (field === 1 && end > start) error = p.toString('utf8', start, end);
    if (field === 2) {
      walk(p, start, end, (inner, s, e) => {
        if (inner === 3) id = parseId(p.toString('latin1', s, e));
      });
    }
  });
  if (!top) return { id: undefined, error: 'an undecodable ModelStreamInferResponse' };
  return { id, error };
}

function parseId(text: string): number | undefined {
  return text.length === ID_DIGITS && /^[0-9a-f]+$/.test(text) ? parseInt(text, 16) : undefined;
}

/**
 * Calls `onBytes` for each length-delimited field in p[from, to); false when the bytes are not
 * protobuf. Lengths are read as varints of at most 5 bytes (messages here stay under 4 GiB).
 */
function walk(
  p: Buffer,
  from: number,
  to: number,
  onBytes: (field: number, start: number, end: number) => void,
): boolean {
  let at = from;
  while (at < to) {
    const tag = varint(p, at, to);
    if (tag === null) return false;
    at = tag.next;
    const field = tag.value >>> 3;
    switch (tag.value & 7) {
      case 0: {
        const v = varint(p, at, to, 10);
        if (v === null) return false;
        at = v.next;
        break;
      }
      case 1:
        at += 8;
        break;
      case 2: {
        const len = varint(p, at, to);
        if (len === null || len.next + len.value > to) return false;
        onBytes(field, len.next, len.next + len.value);
        at = len.next + len.value;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        return false;
    }
  }
  return at === to;
}

function varint(
  p: Buffer,
  at: number,
  to: number,
  maxBytes = 5,
): { value: number; next: number } | null {
  let value = 0;
  for (let i = 0; i < maxBytes && at + i < to; i += 1) {
    const b = p[at + i] as number;
    // Beyond 32 bits only a varint field is skipped, so its value need not be exact.
    value += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) return { value, next: at + i + 1 };
  }
  return null;
}
