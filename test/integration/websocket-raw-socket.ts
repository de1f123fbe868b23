// A bare WebSocket for protocol tests: sends exactly the bytes given (hostile frames included),
// queues replies (as bytes, or decoded from msgpack), and reports how the server closed the socket.

import { Unpackr } from 'msgpackr';
import WebSocket from 'ws';

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

export class RawSocket {
  readonly closed: Promise<CloseInfo>;
  readonly #ws: WebSocket;
  readonly #replies: Buffer[] = [];
  #waiter: ((v: Buffer) => void) | undefined;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    ws.on('message', (data: Buffer) => {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (waiter !== undefined) waiter(data);
      else this.#replies.push(data);
    });
    // A refused or oversized frame can surface as a client-side error before 'close'.
    ws.on('error', () => undefined);
  }

  /** The subprotocol the server chose ('' when it named none). */
  get protocol(): string {
    return this.#ws.protocol;
  }

  /** `headers` go on the upgrade request. */
  static open(
    url: string,
    protocols: string | readonly string[],
    headers: Record<string, string> = {},
  ): Promise<RawSocket> {
    const ws = new WebSocket(url, typeof protocols === 'string' ? [protocols] : [...protocols], {
      perMessageDeflate: false,
      headers,
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawSocket(ws)));
      ws.once('error', reject);
    });
  }

  send(frame: Uint8Array | string): void {
    this.#ws.send(frame, { binary: typeof frame !== 'string' });
  }

  /** The next reply's bytes (or rejects if the socket closes first). */
  nextFrame(): Promise<Buffer> {
    const queued = this.#replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      this.#waiter = resolve;
      void this.closed.then((c) => reject(new Error(`socket closed (${c.code} ${c.reason})`)));
    });
  }

  /** The next reply, decoded from msgpack. */
  async nextMessage(): Promise<unknown> {
    return unpackr.unpack(await this.nextFrame()) as unknown;
  }

  /** Stops reading from the TCP socket, so the server's sends back up. */
  pauseReading(): void {
    this.#ws.pause();
  }

  resumeReading(): void {
    this.#ws.resume();
  }

  close(): void {
    this.#ws.close();
  }
}
