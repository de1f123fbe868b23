// One gRPC channel (one HTTP/2 connection) of the load generator carrying many ModelInfer calls at
// once (`-i grpc`): each call is one HTTP/2 stream with the constant headers and the request's
// pre-framed bytes. A call succeeded when it ended with grpc-status 0 and one ModelInferResponse
// that holds raw output contents, one per output; anything else failed with its status. Every call
// ends in exactly one outcome: its answer, a timeout (the stream is then cancelled, as grpc-js
// cancels a call), or the connection going.

import http2 from 'node:http2';
import { MODEL_INFER_PATH } from '../model/grpc-service.js';
import {
  connectSession,
  describeStatus,
  grpcCallHeaders,
  type GrpcOutcomeCallback,
  type GrpcTarget,
} from './grpc-channel.js';
import { GrpcMessageReader } from './grpc-frames.js';
import { checkInferReply } from './grpc-request.js';
import type { MultiplexedConnection } from './multiplexed-connection.js';

const HEADERS = grpcCallHeaders(MODEL_INFER_PATH);
const { NGHTTP2_CANCEL } = http2.constants;

/** One call in flight: its stream, what arrived so far, and when it started. */
class PendingCall {
  readonly reader = new GrpcMessageReader();
  /** The answer's message (the first; a second makes the answer invalid). */
  message: Buffer | null = null;
  messages = 0;
  firstByteAt = 0;
  readError: string | null = null;
  /** grpc-status and grpc-message, from the trailers (or a trailers-only answer's headers). */
  status: string | undefined = undefined;
  statusMessage: string | undefined = undefined;

  constructor(
    readonly key: number,
    readonly stream: http2.ClientHttp2Stream,
    readonly startAt: number,
    readonly sendUs: number,
  ) {}

  readonly onMessage = (m: Buffer): void => {
    this.messages += 1;
    this.message ??= m;
  };

  headers(h: http2.IncomingHttpHeaders): void {
    const s = h['grpc-status'];
    if (s === undefined) return;
    this.status = String(s);
    const m = h['grpc-message'];
    this.statusMessage = m === undefined ? undefined : String(m);
  }

  /** null for a valid answer, else why the call failed. */
  outcome(): string | null {
    if (this.readError !== null) return this.readError;
    if (this.status !== '0') return describeStatus(this.status, this.statusMessage);
    if (this.reader.partialBytes > 0) return 'the answer ended inside a message';
    if (this.messages !== 1 || this.message === null) {
      return `expected one ModelInferResponse, got ${this.messages} messages`;
    }
    return checkInferReply(this.message);
  }
}

export class GrpcUnaryConnection implements MultiplexedConnection<Buffer> {
  /** In send order, so the timeout walk stops at the first young call. */
  private readonly pending = new Map<number, PendingCall>();
  private nextKey = 1;
  private closed = false;
  /** The server sent GOAWAY: calls under way finish, then the connection is replaced. */
  private goingAway = false;

  private constructor(
    private readonly session: http2.ClientHttp2Session,
    private readonly onOutcome: GrpcOutcomeCallback<GrpcUnaryConnection>,
    private readonly onClosed: (conn: GrpcUnaryConnection) => void,
  ) {
    session.on('error', (e) => this.fail(`connection error: ${e.message}`));
    session.on('goaway', () => {
      this.goingAway = true;
      if (this.pending.size === 0) this.fail('the server sent GOAWAY');
    });
    session.on('close', () => this.fail('connection closed by the server'));
  }

  static async open(
    target: GrpcTarget,
    onOutcome: GrpcOutcomeCallback<GrpcUnaryConnection>,
    onClosed: (conn: GrpcUnaryConnection) => void,
    timeoutMs: number,
  ): Promise<GrpcUnaryConnection> {
    return new GrpcUnaryConnection(await connectSession(target, timeoutMs), onOutcome, onClosed);
  }

  get usable(): boolean {
    return !this.closed && !this.goingAway;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** `request` is the framed ModelInferRequest (gRPC prefix included). */
  send(request: Buffer, startAt: number): void {
    const key = this.nextKey;
    this.nextKey += 1;
    const before = performance.now();
    const stream = this.session.request(HEADERS, { endStream: false });
    stream.end(request);
    const call = new PendingCall(key, stream, startAt, (performance.now() - before) * 1000);
    this.pending.set(key, call);
    stream.on('response', (h) => call.headers(h));
    // The trailers end the call: report it now, not on 'close', which node:http2 emits turns later
    // (that wait was in every latency). A call whose message is not all in yet waits for 'close'.
    stream.on('trailers', (h) => {
      call.headers(h);
      if (call.messages === 1 && call.reader.partialBytes === 0) this.onClose(call);
    });
    stream.on('data', (chunk: Buffer) => {
      if (call.firstByteAt === 0) call.firstByteAt = performance.now();
      call.readError ??= call.reader.push(chunk, call.onMessage);
    });
    // 'close' comes last, after the trailers or a reset; a reset before any status is a failure
    // with the reset's code, which outcome() reports as no grpc-status.
    stream.on('close', () => this.onClose(call));
    // Errors (a reset by the server, the session going) end in 'close' too.
    stream.on('error', () => undefined);
  }

  expire(now: number, timeoutMs: number): void {
    for (const [key, p] of this.pending) {
      if (now - p.startAt <= timeoutMs) return;
      this.pending.delete(key);
      p.stream.close(NGHTTP2_CANCEL);
      this.report(p, now, `no response within ${timeoutMs} ms`);
    }
  }

  close(): void {
    this.fail('closed by the generator');
  }

  private onClose(call: PendingCall): void {
    // A timed-out or cancelled call's late end is skipped quietly.
    if (this.pending.get(call.key) !== call) return;
    this.pending.delete(call.key);
    const now = performance.now();
    let error = call.outcome();
    if (error !== null && call.status === undefined && call.stream.rstCode !== 0) {
      error = `the stream was reset (HTTP/2 code ${call.stream.rstCode})`;
    }
    this.report(call, now, error);
    if (this.goingAway && this.pending.size === 0) this.fail('the server sent GOAWAY');
  }

  /** Fails every pending call once, ends the connection, and tells the owner. */
  private fail(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    const now = performance.now();
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) {
      p.stream.close(NGHTTP2_CANCEL);
      this.report(p, now, reason);
    }
    this.session.destroy();
    this.onClosed(this);
  }

  private report(p: PendingCall, doneAt: number, error: string | null): void {
    const recvUs = p.firstByteAt === 0 ? 0 : (doneAt - p.firstByteAt) * 1000;
    this.onOutcome(this, { error, startAt: p.startAt, doneAt, sendUs: p.sendUs, recvUs });
  }
}
