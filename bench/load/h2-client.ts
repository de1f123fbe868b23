// The load generator's HTTP/2 client connection: a plain TCP socket speaking just enough of RFC
// 9113 to carry gRPC calls, in place of node:http2's client, whose per-stream objects, events and
// header objects cost the generator ~4x the HTTP/1.1 generator's CPU per request on the cores it
// shares with the server. A stream here is a small record; a call is one HEADERS frame built from
// a header block encoded once, plus its body in DATA frames, all flushed in one socket write per
// tick. It keeps the protocol's obligations: SETTINGS (and their ACK), PING answers, both sides'
// flow control (DATA waits for window; what is read is given back in batches), the server's
// MAX_CONCURRENT_STREAMS and MAX_FRAME_SIZE, CONTINUATION, padding, RST_STREAM and GOAWAY.

import net from 'node:net';
import {
  DEFAULT_MAX_FRAME,
  DEFAULT_WINDOW,
  ErrorCode,
  errorName,
  Flag,
  frame,
  FRAME_HEADER_BYTES,
  FrameReader,
  FrameType,
  MAX_WINDOW,
  PREFACE,
  Setting,
  wordFrame,
  writeFrameHeader,
} from './h2-frames.js';
import { HeaderBlockDecoder, type HeaderField } from './h2-header-block.js';
import { SocketWriter } from './h2-socket-writer.js';
import { H2Stream, type H2StreamEvents } from './h2-stream.js';

export interface H2Target {
  readonly host: string;
  readonly port: number;
}

export interface H2ConnectionEvents {
  /** The server sent GOAWAY: open no more streams; the ones it will still answer go on. */
  onGoaway(): void;
  /** The connection ended; every stream still open got onAbort first. */
  onClose(reason: string): void;
}

/**
 * Receive windows far above a benchmark's bytes in flight (64 requests per connection), so the
 * server never waits on this side: the HTTP/2 defaults (64 KiB) stall large tensors. Each is given
 * back once half of it was read, so a long stream never runs dry either.
 */
const STREAM_WINDOW = 16 * 1024 * 1024;
const CONNECTION_WINDOW = 64 * 1024 * 1024;
const LAST_STREAM_ID = MAX_WINDOW;

export class H2Client {
  private events: H2ConnectionEvents = { onGoaway: () => undefined, onClose: () => undefined };
  private readonly reader = new FrameReader(DEFAULT_MAX_FRAME);
  private readonly decoder = new HeaderBlockDecoder();
  private readonly streams = new Map<number, H2Stream>();
  /** Streams opened by the caller beyond the server's MAX_CONCURRENT_STREAMS, in order. */
  private readonly waiting: H2Stream[] = [];
  /** Streams with body bytes waiting for flow-control window. */
  private readonly blocked = new Set<H2Stream>();
  private nextId = 1;
  private sendWindow = DEFAULT_WINDOW;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = DEFAULT_MAX_FRAME;
  private peerMaxStreams = Infinity;
  private unacknowledged = 0;
  /** A header block still waiting for its CONTINUATION frames. */
  private continued: { id: number; end: boolean; parts: Buffer[] } | null = null;
  private readonly writer: SocketWriter;
  private goingAway = false;
  private closedReason: string | null = null;
  private onSettings: (() => void) | null = null;

  private constructor(private readonly socket: net.Socket) {
    this.writer = new SocketWriter(socket);
    socket.on('data', (chunk: Buffer) => {
      const bad = this.reader.push(chunk, this.onFrame);
      if (bad !== null) this.connectionError(ErrorCode.FRAME_SIZE_ERROR, bad);
    });
    socket.on('error', (e) => this.end(`connection error: ${e.message}`));
    socket.on('close', () => this.end('connection closed by the server'));
  }

  /** A connection to `target` whose server's SETTINGS arrived (set-up never lands in a latency). */
  static connect(target: H2Target, timeoutMs: number): Promise<H2Client> {
    return new Promise((resolve, reject) => {
      // Nagle's algorithm would hold small frames back waiting for an ACK: pure added latency.
      const socket = net.connect({ host: target.host, port: target.port });
      socket.setNoDelay(true);
      const client = new H2Client(socket);
      const timer = setTimeout(() => client.end('timed out'), timeoutMs);
      client.events = {
        onGoaway: () => undefined,
        onClose: (reason) => {
          clearTimeout(timer);
          reject(new Error(`no gRPC connection within ${timeoutMs} ms: ${reason}`));
        },
      };
      client.onSettings = () => {
        clearTimeout(timer);
        client.events = { onGoaway: () => undefined, onClose: () => undefined };
        resolve(client);
      };
      socket.once('connect', () => client.sendPreface());
    });
  }

  /** Where this connection's events go from now on (told at once if it already ended). */
  attach(events: H2ConnectionEvents): void {
    this.events = events;
    if (this.closedReason !== null) events.onClose(this.closedReason);
    else if (this.goingAway) events.onGoaway();
  }

  /** False once the connection ended or the server said GOAWAY: open no more streams on it. */
  get usable(): boolean {
    return this.closedReason === null && !this.goingAway && this.nextId <= LAST_STREAM_ID;
  }

  /**
   * Opens a stream with the header block `headerBlock` (encoded once by the caller; see
   * h2-header-block.ts) and, when `body` is given, sends it; `end` closes this side.
   */
  open(headerBlock: Buffer, events: H2StreamEvents, body: Buffer | null, end: boolean): H2Stream {
    const s = new H2Stream(headerBlock, events);
    if (body !== null || end) s.queue.push({ data: body ?? Buffer.alloc(0), offset: 0, end });
    if (this.closedReason !== null || this.goingAway) {
      // A stream opened after GOAWAY would have an id the server said it will not process.
      s.done = true;
      events.onAbort(this.closedReason ?? 'the server sent GOAWAY');
    } else if (this.streams.size >= this.peerMaxStreams) {
      this.waiting.push(s);
    } else {
      this.start(s);
    }
    return s;
  }

  /** More body on an open stream (a long-lived stream's next message). */
  write(s: H2Stream, data: Buffer, end: boolean): void {
    if (s.done) return;
    s.queue.push({ data, offset: 0, end });
    if (s.id !== 0 && s.queue.length === 1) this.sendBody(s);
  }

  /** Gives up on a stream (RST_STREAM CANCEL); its events are not called again. */
  cancel(s: H2Stream): void {
    if (s.done) return;
    s.done = true;
    if (s.id === 0) {
      const at = this.waiting.indexOf(s);
      if (at !== -1) this.waiting.splice(at, 1);
      return;
    }
    this.forget(s);
    this.writer.send(wordFrame(FrameType.RST_STREAM, s.id, ErrorCode.CANCEL));
  }

  /** Ends the connection: every stream still open is aborted with `reason`. */
  close(reason: string): void {
    this.end(reason);
  }

  private sendPreface(): void {
    const settings = Buffer.alloc(18);
    settings.writeUInt16BE(Setting.ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(Setting.INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(STREAM_WINDOW, 8);
    settings.writeUInt16BE(Setting.HEADER_TABLE_SIZE, 12);
    settings.writeUInt32BE(4096, 14);
    this.writer.send(PREFACE);
    this.writer.send(frame(FrameType.SETTINGS, 0, 0, settings));
    this.writer.send(wordFrame(FrameType.WINDOW_UPDATE, 0, CONNECTION_WINDOW - DEFAULT_WINDOW));
  }

  private start(s: H2Stream): void {
    s.id = this.nextId;
    this.nextId += 2;
    s.sendWindow = this.peerInitialWindow;
    this.streams.set(s.id, s);
    const block = s.headerBlock;
    const endStream = s.queue.length === 1 && s.queue[0]!.end && s.queue[0]!.data.length === 0;
    if (endStream) s.queue.length = 0;
    let at = 0;
    let type: number = FrameType.HEADERS;
    do {
      const n = Math.min(block.length - at, this.peerMaxFrame);
      const last = at + n === block.length;
      const flags = (last ? Flag.END_HEADERS : 0) | (endStream && at === 0 ? Flag.END_STREAM : 0);
      const f = Buffer.allocUnsafe(FRAME_HEADER_BYTES + n);
      writeFrameHeader(f, 0, n, type, flags, s.id);
      block.copy(f, FRAME_HEADER_BYTES, at, at + n);
      this.writer.send(f);
      at += n;
      type = FrameType.CONTINUATION;
    } while (at < block.length);
    if (s.queue.length > 0) this.sendBody(s);
  }

  /** Sends what the windows allow of `s`'s queued body; the rest waits for WINDOW_UPDATE. */
  private sendBody(s: H2Stream): void {
    while (s.queue.length > 0) {
      const item = s.queue[0]!;
      const remaining = item.data.length - item.offset;
      const n = Math.min(remaining, this.peerMaxFrame, this.sendWindow, s.sendWindow);
      if (n <= 0 && remaining > 0) {
        this.blocked.add(s);
        return;
      }
      const end = item.end && n === remaining;
      const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
      writeFrameHeader(head, 0, n, FrameType.DATA, end ? Flag.END_STREAM : 0, s.id);
      this.writer.send(head);
      if (n > 0) this.writer.send(item.data.subarray(item.offset, item.offset + n));
      this.sendWindow -= n;
      s.sendWindow -= n;
      item.offset += n;
      if (item.offset === item.data.length) s.queue.shift();
    }
    this.blocked.delete(s);
  }

  private resumeBlocked(): void {
    for (const s of [...this.blocked]) {
      if (this.sendWindow <= 0) return;
      this.sendBody(s);
    }
  }

  private readonly onFrame = (type: number, flags: number, id: number, payload: Buffer): void => {
    if (this.closedReason !== null) return;
    if (this.continued !== null && (type !== FrameType.CONTINUATION || id !== this.continued.id)) {
      this.connectionError(ErrorCode.PROTOCOL_ERROR, 'a header block interrupted by another frame');
      return;
    }
    switch (type) {
      case FrameType.DATA:
        this.onData(flags, id, payload);
        break;
      case FrameType.HEADERS:
        this.onHeaders(flags, id, payload);
        break;
      case FrameType.CONTINUATION: {
        const c = this.continued;
        if (c === null) {
          this.connectionError(ErrorCode.PROTOCOL_ERROR, 'a CONTINUATION after no HEADERS');
          return;
        }
        c.parts.push(payload);
        if ((flags & Flag.END_HEADERS) !== 0) {
          this.continued = null;
          this.deliverHeaders(c.id, Buffer.concat(c.parts), c.end);
        }
        break;
      }
      case FrameType.RST_STREAM: {
        const s = this.streams.get(id);
        if (s === undefined || payload.length !== 4) break;
        s.done = true;
        this.forget(s);
        s.events.onAbort(
          `the stream was reset by the server: ${errorName(payload.readUInt32BE(0))}`,
        );
        break;
      }
      case FrameType.SETTINGS:
        if ((flags & Flag.ACK) === 0) this.onPeerSettings(id, payload);
        break;
      case FrameType.PING:
        if ((flags & Flag.ACK) === 0) this.writer.send(frame(FrameType.PING, Flag.ACK, 0, payload));
        break;
      case FrameType.GOAWAY:
        this.onGoaway(payload);
        break;
      case FrameType.WINDOW_UPDATE:
        this.onWindowUpdate(id, payload);
        break;
      case FrameType.PUSH_PROMISE:
        this.connectionError(ErrorCode.PROTOCOL_ERROR, 'a PUSH_PROMISE with push disabled');
        break;
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113 §4.1, §5.3.2).
        break;
    }
  };

  private onData(flags: number, id: number, payload: Buffer): void {
    // Flow control counts the whole payload, padding included.
    this.unacknowledged += payload.length;
    if (this.unacknowledged >= CONNECTION_WINDOW / 2) {
      this.writer.send(wordFrame(FrameType.WINDOW_UPDATE, 0, this.unacknowledged));
      this.unacknowledged = 0;
    }
    const data = this.unpadded(flags, payload, 0);
    const s = this.streams.get(id);
    if (data === null || s === undefined) return;
    const end = (flags & Flag.END_STREAM) !== 0;
    if (end) {
      this.finish(s);
    } else {
      s.unacknowledged += payload.length;
      if (s.unacknowledged >= STREAM_WINDOW / 2) {
        this.writer.send(wordFrame(FrameType.WINDOW_UPDATE, id, s.unacknowledged));
        s.unacknowledged = 0;
      }
    }
    s.events.onData(data, end);
  }

  private onHeaders(flags: number, id: number, payload: Buffer): void {
    const fixed = (flags & Flag.PRIORITY) !== 0 ? 5 : 0;
    const block = this.unpadded(flags, payload, fixed);
    if (block === null) return;
    const end = (flags & Flag.END_STREAM) !== 0;
    if ((flags & Flag.END_HEADERS) !== 0) this.deliverHeaders(id, block, end);
    else this.continued = { id, end, parts: [block] };
  }

  /** A frame's payload without its pad length, `fixed` bytes after it, and padding. */
  private unpadded(flags: number, payload: Buffer, fixed: number): Buffer | null {
    const padded = (flags & Flag.PADDED) !== 0;
    const pad = padded ? (payload[0] ?? 0) : 0;
    const from = (padded ? 1 : 0) + fixed;
    if (from + pad > payload.length) {
      this.connectionError(ErrorCode.PROTOCOL_ERROR, 'padding longer than its frame');
      return null;
    }
    return from === 0 && pad === 0 ? payload : payload.subarray(from, payload.length - pad);
  }

  private deliverHeaders(id: number, block: Buffer, end: boolean): void {
    let fields: HeaderField[];
    try {
      // Decoded even for a stream given up on: the dynamic table is the connection's.
      fields = this.decoder.decode(block);
    } catch (e) {
      this.connectionError(
        ErrorCode.COMPRESSION_ERROR,
        `an undecodable header block (${e instanceof Error ? e.message : String(e)})`,
      );
      return;
    }
    const s = this.streams.get(id);
    if (s === undefined) return;
    if (end) this.finish(s);
    s.events.onHeaders(fields, end);
  }

  private onPeerSettings(id: number, payload: Buffer): void {
    if (id !== 0 || payload.length % 6 !== 0) {
      this.connectionError(ErrorCode.FRAME_SIZE_ERROR, 'a malformed SETTINGS frame');
      return;
    }
    for (let at = 0; at < payload.length; at += 6) {
      const value = payload.readUInt32BE(at + 2);
      switch (payload.readUInt16BE(at)) {
        case Setting.MAX_CONCURRENT_STREAMS:
          this.peerMaxStreams = value;
          break;
        case Setting.INITIAL_WINDOW_SIZE: {
          // A change applies to every open stream's window, by the difference (§6.9.2).
          const delta = value - this.peerInitialWindow;
          this.peerInitialWindow = value;
          for (const s of this.streams.values()) s.sendWindow += delta;
          break;
        }
        case Setting.MAX_FRAME_SIZE:
          this.peerMaxFrame = value;
          break;
        default:
          // HEADER_TABLE_SIZE bounds a table this side's encoder never uses; others do not apply.
          break;
      }
    }
    this.writer.send(frame(FrameType.SETTINGS, Flag.ACK, 0, Buffer.alloc(0)));
    this.startWaiting();
    this.resumeBlocked();
    const ready = this.onSettings;
    this.onSettings = null;
    ready?.();
  }

  private onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) {
      this.connectionError(ErrorCode.FRAME_SIZE_ERROR, 'a malformed WINDOW_UPDATE frame');
      return;
    }
    const increment = payload.readUInt32BE(0) & MAX_WINDOW;
    if (id === 0) {
      this.sendWindow += increment;
      this.resumeBlocked();
      return;
    }
    const s = this.streams.get(id);
    if (s === undefined) return;
    s.sendWindow += increment;
    if (this.blocked.has(s)) this.sendBody(s);
  }

  private onGoaway(payload: Buffer): void {
    if (payload.length < 8) {
      this.connectionError(ErrorCode.FRAME_SIZE_ERROR, 'a malformed GOAWAY frame');
      return;
    }
    const last = payload.readUInt32BE(0) & MAX_WINDOW;
    const reason = `the server sent GOAWAY (${errorName(payload.readUInt32BE(4))})`;
    this.goingAway = true;
    // Streams above the last one the server will process were not, and never will be.
    const refused = [...this.waiting, ...[...this.streams.values()].filter((s) => s.id > last)];
    this.waiting.length = 0;
    for (const s of refused) {
      s.done = true;
      if (s.id !== 0) this.forget(s);
      s.events.onAbort(reason);
    }
    this.events.onGoaway();
  }

  /** The server ended the stream: this side is done with it too. */
  private finish(s: H2Stream): void {
    s.done = true;
    // The answer came before all of the request: the rest is not wanted (§8.1).
    if (s.queue.length > 0)
      this.writer.send(wordFrame(FrameType.RST_STREAM, s.id, ErrorCode.NO_ERROR));
    this.forget(s);
  }

  private forget(s: H2Stream): void {
    this.streams.delete(s.id);
    this.blocked.delete(s);
    s.queue.length = 0;
    this.startWaiting();
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxStreams) {
      this.start(this.waiting.shift()!);
    }
  }

  private connectionError(code: number, reason: string): void {
    if (this.closedReason !== null) return;
    const goaway = Buffer.alloc(8);
    goaway.writeUInt32BE(0, 0);
    goaway.writeUInt32BE(code, 4);
    this.writer.send(frame(FrameType.GOAWAY, 0, 0, goaway));
    this.writer.flush();
    this.end(`protocol error: ${reason}`);
  }

  private end(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    const open = [...this.waiting, ...this.streams.values()];
    this.waiting.length = 0;
    this.streams.clear();
    this.blocked.clear();
    for (const s of open) {
      s.done = true;
      s.events.onAbort(reason);
    }
    this.socket.end();
    this.socket.destroy();
    this.events.onClose(reason);
  }
}
