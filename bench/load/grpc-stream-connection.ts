// One ModelStreamInfer stream of the load generator (`-i grpc --streaming`), on an HTTP/2
// connection of its own, with many requests in flight, each matched to its answer by the id it was
// sent with. Requests are written as pre-framed bytes on the one long-lived HTTP/2 stream; answers
// are cut out of its DATA chunks. Every request ends in exactly one outcome: its answer, a timeout
// (Triton's stream has no way to cancel one request, so its late answer is skipped), or the stream
// ending.

import http2 from 'node:http2';
import { MODEL_STREAM_INFER_PATH } from '../model/grpc-service.js';
import {
  connectSession,
  describeStatus,
  grpcCallHeaders,
  type GrpcOutcomeCallback,
  type GrpcTarget,
} from './grpc-channel.js';
import { GrpcMessageReader } from './grpc-frames.js';
import { readStreamReply, type GrpcStreamTemplate } from './grpc-request.js';
import type { MultiplexedConnection } from './multiplexed-connection.js';

const HEADERS = grpcCallHeaders(MODEL_STREAM_INFER_PATH);

interface Pending {
  readonly startAt: number;
  readonly sendUs: number;
}

export class GrpcStreamConnection implements MultiplexedConnection<GrpcStreamTemplate> {
  /** In send order, so the timeout walk stops at the first young request. */
  private readonly pending = new Map<number, Pending>();
  private readonly reader = new GrpcMessageReader();
  private readonly onMessage = (m: Buffer): void => this.onAnswer(m);
  private nextId = 1;
  private closed = false;
  /** grpc-status and grpc-message, if the server ended the stream with them. */
  private endStatus: string | undefined;
  private endMessage: string | undefined;

  private constructor(
    private readonly session: http2.ClientHttp2Session,
    private readonly stream: http2.ClientHttp2Stream,
    private readonly onOutcome: GrpcOutcomeCallback<GrpcStreamConnection>,
    private readonly onClosed: (conn: GrpcStreamConnection) => void,
  ) {
    const status = (h: http2.IncomingHttpHeaders): void => {
      if (h['grpc-status'] === undefined) return;
      this.endStatus = String(h['grpc-status']);
      this.endMessage = h['grpc-message'] === undefined ? undefined : String(h['grpc-message']);
    };
    stream.on('response', status);
    stream.on('trailers', status);
    stream.on('data', (chunk: Buffer) => {
      const bad = this.reader.push(chunk, this.onMessage);
      if (bad !== null) this.fail(`an unreadable answer: ${bad}`);
    });
    stream.on('error', () => undefined);
    stream.on('close', () =>
      this.fail(
        this.endStatus === undefined
          ? `the stream was reset (HTTP/2 code ${stream.rstCode})`
          : `the server ended the stream: ${describeStatus(this.endStatus, this.endMessage)}`,
      ),
    );
    session.on('error', (e) => this.fail(`connection error: ${e.message}`));
    session.on('close', () => this.fail('connection closed by the server'));
  }

  static async open(
    target: GrpcTarget,
    onOutcome: GrpcOutcomeCallback<GrpcStreamConnection>,
    onClosed: (conn: GrpcStreamConnection) => void,
    timeoutMs: number,
  ): Promise<GrpcStreamConnection> {
    const session = await connectSession(target, timeoutMs);
    const stream = session.request(HEADERS, { endStream: false });
    return new GrpcStreamConnection(session, stream, onOutcome, onClosed);
  }

  get usable(): boolean {
    return !this.closed;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  send(template: GrpcStreamTemplate, startAt: number): void {
    const id = this.nextId;
    // 32-bit ids (8 hex digits), wrapping long before any id could still be in flight.
    this.nextId = id === 0xffffffff ? 1 : id + 1;
    const before = performance.now();
    // The writable side buffers past its high-water mark; the loop's share bounds what is in flight.
    this.stream.write(template.bytesFor(id));
    this.pending.set(id, { startAt, sendUs: (performance.now() - before) * 1000 });
  }

  expire(now: number, timeoutMs: number): void {
    for (const [id, p] of this.pending) {
      if (now - p.startAt <= timeoutMs) return;
      this.pending.delete(id);
      this.onOutcome(this, {
        error: `no response within ${timeoutMs} ms`,
        startAt: p.startAt,
        doneAt: now,
        sendUs: p.sendUs,
        recvUs: 0,
      });
    }
  }

  close(): void {
    this.fail('closed by the generator');
  }

  private onAnswer(answer: Buffer): void {
    if (this.closed) return;
    const reply = readStreamReply(answer);
    const p = reply.id === undefined ? undefined : this.pending.get(reply.id);
    if (reply.id === undefined || p === undefined) {
      // An answer that matches nothing: a timed-out request's late answer is skipped quietly.
      if (reply.id === undefined) this.fail(`an answer with no usable id: ${reply.error ?? ''}`);
      return;
    }
    this.pending.delete(reply.id);
    this.onOutcome(this, {
      error: reply.error,
      startAt: p.startAt,
      doneAt: performance.now(),
      sendUs: p.sendUs,
      recvUs: 0,
    });
  }

  /** Fails every pending request once, ends the stream and the connection, and tells the owner. */
  private fail(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.close(http2.constants.NGHTTP2_CANCEL);
    this.session.destroy();
    const now = performance.now();
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) {
      this.onOutcome(this, {
        error: reason,
        startAt: p.startAt,
        doneAt: now,
        sendUs: p.sendUs,
        recvUs: 0,
      });
    }
    this.onClosed(this);
  }
}
