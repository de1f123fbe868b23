// An incremental HTTP/1.1 response parser for the load generator: status, keep-alive, and the body
// framed by Content-Length or chunked encoding. It counts body bytes instead of keeping them (the
// generator measures latency; answers are checked once, by the preflight request), except for the
// start of a non-2xx body, which becomes the error message. One response at a time: the generator
// never pipelines, so bytes after a complete response are an error.

export interface HttpResponseInfo {
  readonly status: number;
  /** False when the server said `Connection: close` (the connection must be replaced). */
  readonly keepAlive: boolean;
  readonly bodyBytes: number;
  /** The first bytes of a non-2xx body, for error messages; '' otherwise. */
  readonly bodySample: string;
}

const MAX_HEAD_BYTES = 64 * 1024;
const SAMPLE_BYTES = 512;
const CRLFCRLF = Buffer.from('\r\n\r\n');

type State = 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer';

export class ResponseParser {
  private state: State = 'head';
  private head: Buffer = Buffer.alloc(0);
  private line = '';
  private remaining = 0;
  private status = 0;
  private keepAlive = true;
  private bodyBytes = 0;
  private sample: Buffer[] = [];
  private sampleBytes = 0;

  /**
   * Feeds the next bytes from the socket. Returns the response when these bytes complete it, else
   * null. Throws on malformed framing; the caller then drops the connection.
   */
  push(chunk: Buffer): HttpResponseInfo | null {
    let i = 0;
    while (i < chunk.length) {
      switch (this.state) {
        case 'head': {
          // Heads are small: concatenating the pieces of one head is cheap, unlike a body.
          const joined =
            this.head.length === 0
              ? chunk.subarray(i)
              : Buffer.concat([this.head, chunk.subarray(i)]);
          const end = joined.indexOf(CRLFCRLF);
          if (end === -1) {
            if (joined.length > MAX_HEAD_BYTES)
              throw new Error(`response head over ${MAX_HEAD_BYTES} bytes`);
            this.head = Buffer.from(joined);
            return null;
          }
          const consumed = end + 4 - this.head.length;
          const bodyless = this.parseHead(joined.subarray(0, end).toString('latin1'));
          this.head = Buffer.alloc(0);
          i += consumed;
          if (bodyless) return this.finish(chunk, i);
          break;
        }
        case 'body': {
          const take = Math.min(this.remaining, chunk.length - i);
          this.keep(chunk.subarray(i, i + take));
          this.remaining -= take;
          i += take;
          if (this.remaining === 0) return this.finish(chunk, i);
          break;
        }
        case 'chunk-size':
        case 'chunk-end':
        case 'trailer': {
          const nl = chunk.indexOf(0x0a, i);
          const end = nl === -1 ? chunk.length : nl + 1;
          this.line += chunk.subarray(i, end).toString('latin1');
          i = end;
          if (this.line.length > 4096) throw new Error('chunk framing line too long');
          if (nl === -1) break;
          const line = this.line.replace(/\r?\n$/, '');
          this.line = '';
          if (this.state === 'chunk-end') {
            if (line !== '')
              throw new Error(`expected CRLF after chunk data, got "${line.slice(0, 40)}"`);
            this.state = 'chunk-size';
          } else if (this.state === 'chunk-size') {
            const size = parseInt(line.split(';', 1)[0] ?? '', 16);
            if (!Number.isInteger(size) || size < 0)
              throw new Error(`bad chunk size line "${line.slice(0, 40)}"`);
            this.remaining = size;
            this.state = size === 0 ? 'trailer' : 'chunk-data';
          } else if (line === '') {
            return this.finish(chunk, i);
          }
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.remaining, chunk.length - i);
          this.keep(chunk.subarray(i, i + take));
          this.remaining -= take;
          i += take;
          if (this.remaining === 0) this.state = 'chunk-end';
          break;
        }
      }
    }
    return null;
  }

  /** Reads status and framing headers; true when the response has no body at all. */
  private parseHead(head: string): boolean {
    const lines = head.split('\r\n');
    const statusLine = lines[0] ?? '';
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(statusLine);
    if (m === null) throw new Error(`bad status line "${statusLine.slice(0, 60)}"`);
    this.status = Number(m[2]);
    this.keepAlive = m[1] === '1';
    let length: number | null = null;
    let chunked = false;
    for (let k = 1; k < lines.length; k += 1) {
      const l = lines[k] ?? '';
      const colon = l.indexOf(':');
      if (colon <= 0) continue;
      const name = l.slice(0, colon).trim().toLowerCase();
      const value = l
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'content-length') {
        length = Number(value);
        if (!Number.isSafeInteger(length) || length < 0)
          throw new Error(`bad Content-Length "${value}"`);
      } else if (name === 'transfer-encoding') {
        chunked = value.split(',').some((t) => t.trim() === 'chunked');
      } else if (name === 'connection') {
        if (value.includes('close')) this.keepAlive = false;
        else if (value.includes('keep-alive')) this.keepAlive = true;
      }
    }
    this.bodyBytes = 0;
    this.sample = [];
    this.sampleBytes = 0;
    if (chunked) {
      this.state = 'chunk-size';
      return false;
    }
    if (length === null && !(this.status === 204 || this.status === 304 || this.status < 200)) {
      throw new Error(
        `HTTP ${this.status} response has neither Content-Length nor chunked encoding`,
      );
    }
    this.state = 'body';
    this.remaining = length ?? 0;
    return this.remaining === 0;
  }

  private keep(bytes: Buffer): void {
    this.bodyBytes += bytes.length;
    if ((this.status < 200 || this.status >= 300) && this.sampleBytes < SAMPLE_BYTES) {
      const part = bytes.subarray(0, SAMPLE_BYTES - this.sampleBytes);
      this.sample.push(Buffer.from(part));
      this.sampleBytes += part.length;
    }
  }

  private finish(chunk: Buffer, consumed: number): HttpResponseInfo {
    if (consumed < chunk.length) {
      throw new Error(`${chunk.length - consumed} unexpected bytes after a complete response`);
    }
    const info: HttpResponseInfo = {
      status: this.status,
      keepAlive: this.keepAlive,
      bodyBytes: this.bodyBytes,
      bodySample: this.sampleBytes > 0 ? Buffer.concat(this.sample).toString('utf8') : '',
    };
    this.state = 'head';
    this.sample = [];
    this.sampleBytes = 0;
    return info;
  }
}
