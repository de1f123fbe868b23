// One keep-alive HTTP/1.1 connection of the load generator, with at most one request in flight.
// A raw socket and prebuilt request bytes instead of node:http's client: the generator must cost
// far less CPU per request than the server it measures (on a 2-core machine they share the
// cores), and each request here is one write of one buffer plus an incremental parse of the reply.

import net from 'node:net';
import { ResponseParser, type HttpResponseInfo } from './http-response-parser.js';

export interface HttpOutcome {
  /** The response, or null when the connection failed first. */
  readonly response: HttpResponseInfo | null;
  readonly error: string | null;
  /** performance.now() when the request started and when its last byte arrived (or it failed). */
  readonly sentAt: number;
  readonly doneAt: number;
  /** Client send time (the write, plus waiting for 'drain' if the socket buffered it), µs. */
  readonly sendUs: number;
  /** First response byte to last, µs. */
  readonly recvUs: number;
}

export type OutcomeCallback = (outcome: HttpOutcome) => void;

export class HttpConnection {
  private readonly parser = new ResponseParser();
  private pending: OutcomeCallback | null = null;
  private sentAt = 0;
  private sendUs = 0;
  private firstByteAt = 0;
  private closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => this.fail(`connection error: ${e.message}`));
    socket.on('close', () => this.fail('connection closed by the server'));
  }

  static open(host: string, port: number): Promise<HttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      // Nagle's algorithm would hold a small request back waiting for an ACK: pure added latency.
      socket.setNoDelay(true);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new HttpConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** True while a request is on the wire. */
  get busy(): boolean {
    return this.pending !== null;
  }

  /** performance.now() when the in-flight request was sent (0 when idle). */
  get busySince(): number {
    return this.pending === null ? 0 : this.sentAt;
  }

  /** False once the connection failed or the server asked to close it; open a new one. */
  get usable(): boolean {
    return !this.closed;
  }

  send(request: Buffer, done: OutcomeCallback): void {
    if (this.pending !== null) throw new Error('HttpConnection.send while a request is in flight');
    if (this.closed) {
      const now = performance.now();
      done({
        response: null,
        error: 'connection already closed',
        sentAt: now,
        doneAt: now,
        sendUs: 0,
        recvUs: 0,
      });
      return;
    }
    this.pending = done;
    this.firstByteAt = 0;
    this.sentAt = performance.now();
    const flushed = this.socket.write(request);
    const written = performance.now();
    this.sendUs = (written - this.sentAt) * 1000;
    if (!flushed) {
      const start = this.sentAt;
      this.socket.once('drain', () => {
        this.sendUs = (performance.now() - start) * 1000;
      });
    }
  }

  /** Fails the in-flight request (e.g. a timeout) and closes the connection. */
  abort(reason: string): void {
    this.fail(reason);
    this.socket.destroy();
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const now = performance.now();
    if (this.pending === null) {
      this.abort(`${chunk.length} bytes arrived with no request in flight`);
      return;
    }
    if (this.firstByteAt === 0) this.firstByteAt = now;
    let response: HttpResponseInfo | null;
    try {
      response = this.parser.push(chunk);
    } catch (e) {
      this.abort(`bad response: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (response === null) return;
    const done = this.pending;
    this.pending = null;
    if (!response.keepAlive) this.close();
    done({
      response,
      error: null,
      sentAt: this.sentAt,
      doneAt: now,
      sendUs: this.sendUs,
      recvUs: (now - this.firstByteAt) * 1000,
    });
  }

  private fail(reason: string): void {
    this.closed = true;
    const done = this.pending;
    if (done === null) return;
    this.pending = null;
    const now = performance.now();
    done({
      response: null,
      error: reason,
      sentAt: this.sentAt,
      doneAt: now,
      sendUs: this.sendUs,
      recvUs: 0,
    });
  }
}
