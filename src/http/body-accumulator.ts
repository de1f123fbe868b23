// The request body as it arrives: every chunk is copied into one buffer, so the call's `body` is a
// single contiguous `Uint8Array` whatever the framing, and the size limit is enforced per chunk.
//
// Why copy: uWS hands `onData` a view of memory it reuses (and neuters) once the callback returns,
// and concatenating chunk lists at the end is quadratic in the number of chunks. With a
// Content-Length the buffer is allocated once at its exact size; for chunked bodies it doubles,
// never past the limit, so the total copying stays linear.
//
// The buffer is the request's own (src/memory/movable-buffers.ts): a large body may be moved to the
// worker that runs it. When the caller knows where tensor bytes start (a binary request's
// Inference-Header-Content-Length), the buffer is laid out so that they start on a 64-byte
// boundary and can be viewed in place as any TypedArray.
//
// Every allocation is announced first to `reserve` (the exchange's share of --client-memory-budget):
// the whole Content-Length before the buffer is made, a chunked body's new capacity before each
// regrow. A reservation that does not fit throws, and nothing is allocated.

import { fail } from '../errors.js';
import { allocateRequestBytes } from '../memory/movable-buffers.js';
import { bodyTooLarge, type BodyFraming, type BodyKind } from './body-framing.js';

/** First allocation for a chunked body: covers most JSON requests without a regrow. */
const CHUNKED_INITIAL_BYTES = 64 * 1024;

const EMPTY = new Uint8Array(0);

/**
 * The most pieces a chunked body may arrive in: Triton's cap (65,536 non-empty chunks), with its
 * message, so a client written against Triton sees the same limit. Each piece costs a callback and
 * a copy whatever its size (a million one-byte chunks kept the main thread busy for 9-12 s before
 * the body could be refused); at the cap the cost stays under a second. A real client's pieces are
 * its write or TCP segment sizes (measured: 229 pieces for 13 MiB sent as 64 KiB chunks on uWS,
 * 401 on node). The front ends hand over de-chunked data, so a piece is one chunk or several.
 */
export const MAX_CHUNKS = 65_536;

export class BodyAccumulator {
  readonly #maxBodyBytes: number;
  /** Set when the framing fixes the size; a mismatch is an error, never a truncation or overrun. */
  readonly #expected: number | undefined;
  #buffer: Uint8Array;
  #length = 0;
  /** Pieces received (chunked framing only: a length-framed body cannot grow its count unbounded). */
  #pieces = 0;
  readonly #chunked: boolean;
  /** The body offset to align to 64 bytes (0: the body's start). */
  readonly #alignAt: number;
  readonly #kind: BodyKind;
  readonly #reserve: ((totalBytes: number) => void) | undefined;

  /**
   * `kind` only words the size-limit error (see bodyTooLarge). `reserve`, when given, is told the
   * buffer's whole size before each allocation, and throws to refuse it.
   */
  constructor(
    framing: BodyFraming,
    maxBodyBytes: number,
    alignAt = 0,
    kind: BodyKind = 'json',
    reserve?: (totalBytes: number) => void,
  ) {
    this.#maxBodyBytes = maxBodyBytes;
    this.#reserve = reserve;
    this.#alignAt = alignAt;
    this.#kind = kind;
    this.#chunked = framing.kind === 'chunked';
    switch (framing.kind) {
      case 'none':
        this.#expected = 0;
        this.#buffer = EMPTY;
        break;
      case 'length':
        // bodyFraming() has checked the length against the limit, so this allocation is bounded.
        this.#expected = framing.length;
        reserve?.(framing.length);
        this.#buffer = allocateRequestBytes(framing.length, alignAt);
        break;
      case 'chunked':
        this.#expected = undefined;
        this.#buffer = EMPTY;
        break;
    }
  }

  /** Bytes received so far. */
  get length(): number {
    return this.#length;
  }

  /**
   * Copies `chunk` in. The chunk may be reused by the caller as soon as this returns.
   * Throws BODY_TOO_LARGE past the limit and BAD_REQUEST past a declared Content-Length.
   */
  append(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    const needed = this.#length + chunk.byteLength;
    if (this.#expected !== undefined && needed > this.#expected) {
      throw fail(
        'BAD_REQUEST',
        `request body is longer than its Content-Length: expected ${this.#expected} bytes, ` +
          `got at least ${needed}`,
      );
    }
    if (needed > this.#maxBodyBytes) throw bodyTooLarge(needed, this.#maxBodyBytes, this.#kind);
    if (this.#chunked) {
      this.#pieces += 1;
      if (this.#pieces > MAX_CHUNKS) {
        throw fail(
          'BAD_REQUEST',
          `Chunked request body exceeds maximum of ${MAX_CHUNKS} non-empty chunks. ` +
            'Send fewer or larger HTTP chunks.',
        );
      }
    }
    if (needed > this.#buffer.byteLength) this.#grow(needed);
    this.#buffer.set(chunk, this.#length);
    this.#length = needed;
  }

  /** The whole body, once the last chunk is in. Throws BAD_REQUEST if it is shorter than declared. */
  finish(): Uint8Array {
    if (this.#expected !== undefined && this.#length !== this.#expected) {
      throw fail(
        'BAD_REQUEST',
        `request body is shorter than its Content-Length: expected ${this.#expected} bytes, ` +
          `got ${this.#length}`,
      );
    }
    // A view, not a copy: the spare capacity of a chunked buffer is simply not exposed.
    return this.#length === this.#buffer.byteLength
      ? this.#buffer
      : this.#buffer.subarray(0, this.#length);
  }

  #grow(needed: number): void {
    // Geometric growth keeps total copying linear; the cap keeps a body just under the limit from
    // reserving twice the limit.
    let capacity = Math.max(this.#buffer.byteLength, CHUNKED_INITIAL_BYTES);
    while (capacity < needed) capacity *= 2;
    capacity = Math.min(capacity, this.#maxBodyBytes);
    this.#reserve?.(capacity);
    const next = allocateRequestBytes(capacity, this.#alignAt);
    next.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = next;
  }
}
