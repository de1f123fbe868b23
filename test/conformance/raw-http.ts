// A raw TCP HTTP/1.1 client for the framing cases no well-behaved client (fetch) will produce:
// headers without their body, conflicting framing headers, bytes past a Content-Length, 100,000
// one-byte chunks, many requests on one connection. Responses are parsed by Content-Length, which
// both adapters always send.

import net from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

/** The next thing the server did: a complete response, or closing the connection without one. */
export type RawOutcome = RawResponse | 'closed';

export class RawConnection {
  readonly #socket: net.Socket;
  #buffered: Buffer = Buffer.alloc(0);
  #peerClosed = false;
  #wake: (() => void) | undefined;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('data', (data: Buffer) => {
      this.#buffered = this.#buffered.length === 0 ? data : Buffer.concat([this.#buffered, data]);
      this.#wake?.();
    });
    const closed = (): void => {
      this.#peerClosed = true;
      this.#wake?.();
    };
    socket.on('end', closed);
    socket.on('close', closed);
    // A reset from the server counts as closing; the outcome says 'closed'.
    socket.on('error', () => undefined);
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Resolves once the bytes are handed to the kernel (or rejects if the socket is gone). */
  send(data: string | Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#socket.write(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Half-closes: the server sees end of input (a truncated body, for instance). */
  end(): void {
    this.#socket.end();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  /** The next final response (1xx interim responses are skipped unless `interim`), or 'closed'. */
  async next(options: { interim?: boolean } = {}): Promise<RawOutcome> {
    for (;;) {
      const parsed = parseOne(this.#buffered);
      if (parsed !== undefined) {
        this.#buffered = this.#buffered.subarray(parsed.consumed);
        if (parsed.response.status >= 200 || options.interim === true) return parsed.response;
        continue;
      }
      if (this.#peerClosed) return 'closed';
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  /** The next response; fails the test if the server closed instead. */
  async response(options: { interim?: boolean } = {}): Promise<RawResponse> {
    const outcome = await this.next(options);
    if (outcome === 'closed')
      throw new Error('the server closed the connection without a response');
    return outcome;
  }

  /** Resolves when the server has closed the connection (any further bytes are discarded). */
  async closed(): Promise<void> {
    while (!this.#peerClosed) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}

function parseOne(buffer: Buffer): { response: RawResponse; consumed: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const lines = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (match === null) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const status = Number(match[1]);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const bodyStart = headEnd + 4;
  const length = status < 200 ? 0 : Number(headers.get('content-length') ?? NaN);
  if (!Number.isSafeInteger(length)) {
    throw new Error(`response without a usable Content-Length: ${lines.join(' | ')}`);
  }
  if (buffer.length < bodyStart + length) return undefined;
  return {
    response: { status, headers, body: buffer.subarray(bodyStart, bodyStart + length) },
    consumed: bodyStart + length,
  };
}

/** A request head (and optional body) as bytes; `headers` are written verbatim, in order. */
export function rawRequest(
  method: string,
  target: string,
  headers: readonly (readonly [string, string])[] = [],
  body: string | Uint8Array = '',
): Buffer {
  const head =
    `${method} ${target} HTTP/1.1\r\nHost: conformance\r\n` +
    headers.map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    '\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
}

/** Whether connecting is refused (nothing listening), without sending anything. */
export function connectionRefused(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
