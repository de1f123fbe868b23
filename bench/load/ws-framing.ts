// RFC 6455 framing for the WebSocket load generator: the upgrade request and its answer, the
// header of a client frame, and an incremental reader of server frames. Hand-written (like the
// HTTP engine's raw sockets) so the generator spends per request one write of prebuilt bytes and
// one header parse, far less than a general WebSocket client with events per message.

import { createHash, randomBytes } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export const OPCODE = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

export interface Handshake {
  readonly request: Buffer;
  /** The Sec-WebSocket-Accept value a genuine upgrade answers with. */
  readonly expectedAccept: string;
}

export function buildHandshake(
  host: string,
  port: number,
  path: string,
  subprotocol: string,
): Handshake {
  const key = randomBytes(16).toString('base64');
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}:${port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${key}`,
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Protocol: ${subprotocol}`,
  ];
  return {
    request: Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    expectedAccept: createHash('sha1')
      .update(key + GUID)
      .digest('base64'),
  };
}

/** Checks an upgrade answer's head (status line and headers, without the blank line). */
export function checkUpgradeAnswer(
  head: string,
  expectedAccept: string,
  subprotocol: string,
): void {
  const [status = '', ...lines] = head.split('\r\n');
  if (!/^HTTP\/1\.1 101 /.test(status)) {
    throw new Error(`WebSocket upgrade: expected HTTP/1.1 101, got "${status.slice(0, 200)}"`);
  }
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const accept = headers.get('sec-websocket-accept');
  if (accept !== expectedAccept) {
    throw new Error(
      `WebSocket upgrade: expected Sec-WebSocket-Accept ${expectedAccept}, got ${accept ?? 'none'}`,
    );
  }
  const protocol = headers.get('sec-websocket-protocol');
  if (protocol !== subprotocol) {
    throw new Error(
      `WebSocket upgrade: expected subprotocol ${subprotocol}, got ${protocol ?? 'none'}`,
    );
  }
}

/**
 * The header of one final, masked client frame carrying `length` payload bytes. The masking key
 * is zero, so the payload goes out unchanged and prebuilt bytes can be written as they are. A
 * server unmasks every frame whatever its key, so this saves client CPU without changing the
 * server's work; the key's unpredictability (RFC 6455 §10.3) protects proxies that browsers
 * talk through, which a benchmark on a direct connection does not have.
 */
export function clientFrameHeader(opcode: number, length: number): Buffer {
  const size = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  const head = Buffer.alloc(size + 4); // the 4 trailing bytes are the (zero) masking key
  head[0] = 0x80 | opcode;
  if (size === 2) {
    head[1] = 0x80 | length;
  } else if (size === 4) {
    head[1] = 0x80 | 126;
    head.writeUInt16BE(length, 2);
  } else {
    head[1] = 0x80 | 127;
    head.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    head.writeUInt32BE(length >>> 0, 6);
  }
  return head;
}

/** A whole client frame (control frames and cancels: rare, so built when needed). */
export function clientFrame(opcode: number, payload: Uint8Array): Buffer {
  return Buffer.concat([clientFrameHeader(opcode, payload.byteLength), payload]);
}

export interface FrameSink {
  /** A complete binary message; `payload` is valid only during the call. */
  message(payload: Buffer, firstByteAt: number, now: number): void;
  /** A control frame (close, ping, pong) or a text frame. */
  control(opcode: number, payload: Buffer): void;
  /** The stream broke the framing rules; the connection must close. */
  protocolError(reason: string): void;
}

const EMPTY = Buffer.alloc(0);

/**
 * Incremental reader of server frames. Chunks are only concatenated once enough bytes for the next
 * step have arrived, so a large frame split over many chunks is copied once, not once per chunk.
 */
export class FrameReader {
  private buffer: Buffer = EMPTY;
  private readonly chunks: Buffer[] = [];
  private queuedBytes = 0;
  /** Bytes (from the start of `buffer`) needed before parsing can progress. */
  private need = 2;
  private firstByteAt = 0;
  private fragments: Buffer[] | null = null;

  constructor(private readonly sink: FrameSink) {}

  push(chunk: Buffer, now: number): void {
    if (this.firstByteAt === 0) this.firstByteAt = now;
    if (this.buffer.length === 0 && this.chunks.length === 0) {
      this.buffer = chunk;
    } else {
      this.chunks.push(chunk);
      this.queuedBytes += chunk.length;
      if (this.buffer.length + this.queuedBytes < this.need) return;
      this.buffer = Buffer.concat([this.buffer, ...this.chunks]);
      this.chunks.length = 0;
      this.queuedBytes = 0;
    }
    const buf = this.buffer;
    let at = 0;
    for (;;) {
      const left = buf.length - at;
      if (left < 2) {
        this.need = 2;
        break;
      }
      const b0 = buf[at] as number;
      const b1 = buf[at + 1] as number;
      if ((b1 & 0x80) !== 0) return this.sink.protocolError('a server frame is masked');
      if ((b0 & 0x70) !== 0) return this.sink.protocolError('a frame has RSV bits set');
      const short = b1 & 0x7f;
      const headLength = short === 126 ? 4 : short === 127 ? 10 : 2;
      if (left < headLength) {
        this.need = headLength;
        break;
      }
      const length =
        short === 126
          ? buf.readUInt16BE(at + 2)
          : short === 127
            ? buf.readUInt32BE(at + 2) * 2 ** 32 + buf.readUInt32BE(at + 6)
            : short;
      if (left < headLength + length) {
        this.need = headLength + length;
        break;
      }
      const payload = buf.subarray(at + headLength, at + headLength + length);
      at += headLength + length;
      this.frame(b0 & 0x0f, (b0 & 0x80) !== 0, payload, now);
      // A frame that starts inside this chunk arrived now.
      this.firstByteAt = now;
    }
    this.buffer = at === buf.length ? EMPTY : buf.subarray(at);
    if (this.buffer.length === 0) this.firstByteAt = 0;
  }

  private frame(opcode: number, fin: boolean, payload: Buffer, now: number): void {
    if (opcode === OPCODE.binary || opcode === OPCODE.continuation) {
      if (opcode === OPCODE.continuation && this.fragments === null) {
        this.sink.protocolError('a continuation frame with no message to continue');
        return;
      }
      if (!fin) {
        // Fragments must outlive the chunk they arrived in: copy them.
        (this.fragments ??= []).push(Buffer.from(payload));
        return;
      }
      if (this.fragments !== null) {
        this.fragments.push(payload);
        payload = Buffer.concat(this.fragments);
        this.fragments = null;
      }
      this.sink.message(payload, this.firstByteAt, now);
      return;
    }
    this.sink.control(opcode, payload);
  }
}
