// The soak's WebSocket client: one socket to /v2/ws speaking msgpack, with requests matched to
// their answers by id, cancel frames, raw (garbage) frames whose answer carries no id, and a close
// with requests still in flight.

import { pack, unpack } from 'msgpackr';
import WebSocket from 'ws';

/** An answer frame, decoded: a success has `outputs`, a failure `error.code`. */
export interface WsAnswer {
  readonly id: unknown;
  readonly errorCode: string | null;
}

/** What a request ended with: an answer, or the socket closing first. */
export type WsEnd = WsAnswer | 'closed';

export class SoakSocket {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (end: WsEnd) => void>();
  /** Callers waiting for an answer with a nil id (the answer to an unusable frame). */
  readonly #nilWaiters: ((end: WsEnd) => void)[] = [];
  #nextId = 1;
  #closeCode: number | null = null;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data: Buffer) => this.#onFrame(data));
    socket.on('close', (code: number) => {
      this.#closeCode = code;
      this.#endAll();
    });
    socket.on('error', () => this.#endAll());
  }

  static open(url: string): Promise<SoakSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once('open', () => {
        socket.removeListener('error', reject);
        resolve(new SoakSocket(socket));
      });
      socket.once('error', reject);
    });
  }

  /** The close code the socket ended with (null while it is open). */
  get closeCode(): number | null {
    return this.#closeCode;
  }

  get open(): boolean {
    return this.#socket.readyState === WebSocket.OPEN;
  }

  /** Sends `frame` (without its id, which is assigned here) and waits for its answer. */
  request(frame: Record<string, unknown>): { id: number; end: Promise<WsEnd> } {
    const id = this.#nextId++;
    const end = new Promise<WsEnd>((resolve) => this.#pending.set(id, resolve));
    this.#send(pack({ id, ...frame }));
    return { id, end };
  }

  cancel(id: number): void {
    this.#send(pack({ id, cancel: true }));
  }

  /** Sends a frame with no usable id; resolves with the nil-id answer (or the close). */
  unidentified(bytes: Buffer | Uint8Array): Promise<WsEnd> {
    const end = new Promise<WsEnd>((resolve) => this.#nilWaiters.push(resolve));
    this.#send(bytes);
    return end;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.readyState === WebSocket.CLOSED) return resolve();
      this.#socket.once('close', () => resolve());
      this.#socket.close();
    });
  }

  #send(bytes: Buffer | Uint8Array): void {
    if (this.#socket.readyState !== WebSocket.OPEN) return this.#endAll();
    this.#socket.send(bytes, { binary: true }, (e) => {
      if (e !== undefined && e !== null) this.#endAll();
    });
  }

  #onFrame(data: Buffer): void {
    let frame: { id?: unknown; error?: { code?: unknown } };
    try {
      frame = unpack(data) as typeof frame;
    } catch {
      return; // not msgpack: no request of ours to end
    }
    const answer: WsAnswer = {
      id: frame.id,
      errorCode: frame.error === undefined ? null : String(frame.error.code),
    };
    if (typeof frame.id === 'number') {
      const resolve = this.#pending.get(frame.id);
      this.#pending.delete(frame.id);
      resolve?.(answer);
    } else {
      this.#nilWaiters.shift()?.(answer);
    }
  }

  #endAll(): void {
    for (const resolve of this.#pending.values()) resolve('closed');
    this.#pending.clear();
    for (const resolve of this.#nilWaiters.splice(0)) resolve('closed');
  }
}
