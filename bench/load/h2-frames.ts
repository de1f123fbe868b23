// HTTP/2 framing (RFC 9113 §4, §6) for the load generator's own client: the frame types, flags,
// settings and error codes it uses, the 9-byte frame header it writes, and a reader that cuts a
// socket's chunks into whole frames without copying a frame that arrived in one chunk.

export const FRAME_HEADER_BYTES = 9;

export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

export const Flag = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
} as const;

export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  FLOW_CONTROL_ERROR: 0x3,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
} as const;

const ERROR_NAMES = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
];

/** `CANCEL (8)`: an error code as the RFC names it, with its number. */
export function errorName(code: number): string {
  return `${ERROR_NAMES[code] ?? 'unknown error'} (${code})`;
}

/** The client's connection preface, sent before its first SETTINGS. */
export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** The largest window (and window increment) HTTP/2 allows: 2^31 - 1. */
export const MAX_WINDOW = 0x7fffffff;
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME = 16_384;

/** Writes a frame header at `at` of `into`. */
export function writeFrameHeader(
  into: Buffer,
  at: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): void {
  into[at] = length >>> 16;
  into[at + 1] = (length >>> 8) & 0xff;
  into[at + 2] = length & 0xff;
  into[at + 3] = type;
  into[at + 4] = flags;
  into.writeUInt32BE(streamId, at + 5);
}

/** A whole frame with `payload` (a fresh buffer, for control frames). */
export function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  writeFrameHeader(out, 0, payload.length, type, flags, streamId);
  payload.copy(out, FRAME_HEADER_BYTES);
  return out;
}

/** A frame whose payload is one 32-bit word (WINDOW_UPDATE, RST_STREAM). */
export function wordFrame(type: number, streamId: number, word: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 4);
  writeFrameHeader(out, 0, 4, type, 0, streamId);
  out.writeUInt32BE(word, FRAME_HEADER_BYTES);
  return out;
}

export type FrameHandler = (type: number, flags: number, streamId: number, payload: Buffer) => void;

/**
 * Whole frames out of a socket's chunks. A frame inside one chunk is handed on as a slice of it;
 * only a frame split across chunks is joined (once, when its last byte arrived).
 */
export class FrameReader {
  private held: Buffer[] = [];
  private heldBytes = 0;

  /** `maxPayload` is the SETTINGS_MAX_FRAME_SIZE this side advertised. */
  constructor(private readonly maxPayload: number) {}

  /** Calls `onFrame` for each frame `chunk` completes; an error text for an oversized frame. */
  push(chunk: Buffer, onFrame: FrameHandler): string | null {
    let data = chunk;
    if (this.heldBytes > 0) {
      // Wait for the rest of a frame before joining: a large frame arrives in many chunks.
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes < this.neededBytes()) return null;
      data = Buffer.concat(this.held, this.heldBytes);
      this.held = [];
      this.heldBytes = 0;
    }
    let at = 0;
    while (data.length - at >= FRAME_HEADER_BYTES) {
      const length = (data[at]! << 16) | (data[at + 1]! << 8) | data[at + 2]!;
      if (length > this.maxPayload) {
        return `a ${length}-byte frame, above the ${this.maxPayload} bytes this client allows`;
      }
      const end = at + FRAME_HEADER_BYTES + length;
      if (end > data.length) break;
      onFrame(
        data[at + 3]!,
        data[at + 4]!,
        data.readUInt32BE(at + 5) & MAX_WINDOW,
        data.subarray(at + FRAME_HEADER_BYTES, end),
      );
      at = end;
    }
    if (at < data.length) {
      const rest = data.subarray(at);
      this.held.push(rest);
      this.heldBytes = rest.length;
    }
    return null;
  }

  /** Bytes of the held frame (its header, when not even that is in yet). */
  private neededBytes(): number {
    if (this.heldBytes < FRAME_HEADER_BYTES) return FRAME_HEADER_BYTES;
    const head =
      this.held[0]!.length >= 3 ? this.held[0]! : Buffer.concat(this.held).subarray(0, 3);
    return FRAME_HEADER_BYTES + ((head[0]! << 16) | (head[1]! << 8) | head[2]!);
  }
}
