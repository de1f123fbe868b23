// A strict, incremental decoder of a `Transfer-Encoding: chunked` body (RFC 9112 §7.1), for the one
// path where infernode reads a body off the socket itself: a request with both Transfer-Encoding
// and Content-Length, which node's parser refuses but Triton reads by its Transfer-Encoding (see
// node/node-framing-takeover.ts). Everything else is de-chunked by the HTTP library.
//
// Strict on purpose, since the request already carried a smuggling signal: CRLF line ends only (a
// bare LF is refused), hexadecimal sizes of at most 8 digits, chunk extensions skipped but bounded,
// trailer fields skipped but bounded. Bytes after the final CRLF are not this request's: they are
// reported, never decoded, and the caller closes the connection.

import { fail } from '../errors.js';

/** The longest chunk-size line or trailer line accepted, CRLF included (llhttp has no tighter cap). */
const MAX_LINE_BYTES = 4096;
/** At most 8 hex digits: 4 GiB, over any body limit, so the size check below decides. */
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,8})(?:[ \t]*;[\x21-\x7e \t]*)?$/;
/** All trailer lines together; trailers are skipped, so there is no reason to take many. */
const MAX_TRAILER_BYTES = 16 * 1024;
const TRAILER_FIELD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\x20-\x7e\t\x80-\xff]*$/;

type Phase = 'size' | 'data' | 'data-crlf' | 'trailer' | 'done';

export class ChunkedDecoder {
  readonly #onData: (bytes: Uint8Array) => void;
  #phase: Phase = 'size';
  /** Bytes of a line not yet complete (chunk-size or trailer), at most MAX_LINE_BYTES. */
  #line = '';
  /** Data bytes left in the current chunk. */
  #remaining = 0;
  #trailerBytes = 0;

  /** `onData` receives each piece of body data; it may throw to stop decoding. */
  constructor(onData: (bytes: Uint8Array) => void) {
    this.#onData = onData;
  }

  get done(): boolean {
    return this.#phase === 'done';
  }

  /**
   * Decodes `bytes`. Returns how many were consumed: all of them until the body ends, then the
   * offset just past the final CRLF. Throws BAD_REQUEST on anything that is not chunked framing.
   */
  push(bytes: Uint8Array): number {
    let at = 0;
    while (at < bytes.byteLength && this.#phase !== 'done') {
      switch (this.#phase) {
        case 'size':
        case 'trailer':
          at = this.#readLine(bytes, at);
          break;
        case 'data': {
          const take = Math.min(this.#remaining, bytes.byteLength - at);
          this.#onData(bytes.subarray(at, at + take));
          this.#remaining -= take;
          at += take;
          if (this.#remaining === 0) this.#phase = 'data-crlf';
          break;
        }
        case 'data-crlf':
          at = this.#readLine(bytes, at);
          break;
      }
    }
    return at;
  }

  /** Collects one CRLF-terminated line from `at`, and acts on it once complete. */
  #readLine(bytes: Uint8Array, at: number): number {
    let i = at;
    while (i < bytes.byteLength && bytes[i] !== 0x0a) i += 1;
    this.#line += Buffer.from(bytes.buffer, bytes.byteOffset + at, i - at).toString('latin1');
    if (this.#line.length > MAX_LINE_BYTES) {
      throw fail('BAD_REQUEST', `chunked body: a line is longer than ${MAX_LINE_BYTES} bytes`);
    }
    if (i === bytes.byteLength) return i; // the line continues in the next piece
    if (!this.#line.endsWith('\r')) {
      throw fail('BAD_REQUEST', 'chunked body: expected CRLF line ends, got a bare LF');
    }
    const line = this.#line.slice(0, -1);
    this.#line = '';
    this.#onLine(line);
    return i + 1;
  }

  #onLine(line: string): void {
    switch (this.#phase) {
      case 'data-crlf':
        if (line !== '') {
          throw fail('BAD_REQUEST', 'chunked body: expected CRLF after the chunk data');
        }
        this.#phase = 'size';
        return;
      case 'size': {
        const match = CHUNK_SIZE.exec(line);
        if (match === null) {
          throw fail(
            'BAD_REQUEST',
            `chunked body: expected a hexadecimal chunk size, got "${line.slice(0, 40)}"`,
          );
        }
        this.#remaining = Number.parseInt(match[1] ?? '', 16);
        this.#phase = this.#remaining === 0 ? 'trailer' : 'data';
        return;
      }
      case 'trailer':
        if (line === '') {
          this.#phase = 'done';
          return;
        }
        this.#trailerBytes += line.length + 2;
        if (!TRAILER_FIELD.test(line) || this.#trailerBytes > MAX_TRAILER_BYTES) {
          throw fail(
            'BAD_REQUEST',
            `chunked body: expected trailer fields of at most ${MAX_TRAILER_BYTES} bytes`,
          );
        }
        return;
      case 'data':
      case 'done':
        return;
    }
  }
}
