// gRPC's length-prefixed messages out of an HTTP/2 stream's DATA chunks, for a call served beside
// grpc-js (stream-infer.ts), and for the answers the load generator reads (bench/load/grpc-*). A chunk may hold several messages, a message may span many chunks;
// in the common case (whole messages in one chunk) each message is a view of the chunk, and only a
// message that spans chunks is copied, once, when its last byte arrives. The prefix's length is
// checked against the size limit as soon as the prefix is in, before the message is buffered.

import { status } from '@grpc/grpc-js';
import { PREFIX_BYTES } from './h2-response.js';

/** Why the stream cannot go on: the gRPC status to end it with, in grpc-js's words where it has any. */
export interface FramingProblem {
  readonly code: status;
  readonly details: string;
}

export class MessageReader {
  /** Bytes of the message under way (and anything after it), not yet whole. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Prefix plus length of the message under way; 0 until its prefix is in. */
  private needed = 0;

  /** @param maxBytes the largest message accepted, -1 for none */
  constructor(private readonly maxBytes: number) {}

  /** Whether bytes of a message are buffered: a stream that ends now ends inside a message. */
  get midMessage(): boolean {
    return this.pendingBytes > 0;
  }

  /** Bytes of a message begun and not finished (the load generator reports them). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Hands every message `chunk` completes to `onMessage`, in order; returns what stops the stream,
   * if something does (nothing is read after that).
   */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): FramingProblem | undefined {
    if (this.pendingBytes === 0) return this.scan(chunk, onMessage);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.needed === 0) {
      if (this.pendingBytes < PREFIX_BYTES) return undefined;
      // The prefix itself spans chunks: join what is here (a few bytes past it, at most a chunk).
      const joined = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [joined];
      const problem = this.checkPrefix(joined, 0);
      if (problem !== undefined) return problem;
      this.needed = PREFIX_BYTES + joined.readUInt32BE(1);
    }
    if (this.pendingBytes < this.needed) return undefined;
    const whole = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.needed = 0;
    return this.scan(whole, onMessage);
  }

  /** Reads whole messages from the start of `buf`; keeps the rest as the message under way. */
  private scan(buf: Buffer, onMessage: (message: Buffer) => void): FramingProblem | undefined {
    let at = 0;
    while (buf.length - at >= PREFIX_BYTES) {
      const problem = this.checkPrefix(buf, at);
      if (problem !== undefined) return problem;
      const end = at + PREFIX_BYTES + buf.readUInt32BE(at + 1);
      if (end > buf.length) {
        this.needed = end - at;
        break;
      }
      onMessage(buf.subarray(at + PREFIX_BYTES, end));
      at = end;
    }
    if (at < buf.length) {
      const rest = buf.subarray(at);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return undefined;
  }

  private checkPrefix(buf: Buffer, at: number): FramingProblem | undefined {
    // Only calls without grpc-encoding come here (the others go to grpc-js, which decompresses).
    if (buf[at] !== 0) {
      return {
        code: status.INTERNAL,
        details: 'a compressed message on a call that declared no grpc-encoding',
      };
    }
    const size = buf.readUInt32BE(at + 1);
    if (this.maxBytes !== -1 && size > this.maxBytes) {
      return {
        code: status.RESOURCE_EXHAUSTED,
        details: `Received message larger than max (${size} vs ${this.maxBytes})`,
      };
    }
    return undefined;
  }
}
