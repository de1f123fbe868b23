// One gRPC channel (one HTTP/2 connection) of the load generator carrying many ModelInfer calls at
// once (`-i grpc`): each call is one HTTP/2 stream opened with the channel's constant header block
// and the request's pre-framed bytes. A call succeeded when it ended with grpc-status 0 and one
// ModelInferResponse that holds raw output contents, one per output; anything else failed with its
// status. Every call ends in exactly one outcome: its answer, a timeout (the stream is then
// cancelled with RST_STREAM, as grpc-js cancels a call), or the connection going.

import { MODEL_INFER_PATH } from '../model/grpc-service.js';
import {
  connectSession,
  GrpcCallStatus,
  grpcCallHeaderBlock,
  type GrpcOutcomeCallback,
  type GrpcTarget,
} from './grpc-channel.js';
import { MessageReader } from 'infernode/tooling';
import { checkInferReply } from './grpc-request.js';
import type { H2Client } from './h2-client.js';
import type { H2Stream, H2StreamEvents } from './h2-stream.js';
import type { HeaderField } from './h2-header-block.js';
import type { MultiplexedConnection } from './multiplexed-connection.js';

/** One call in flight: what arrived so far, and when it started. */
class PendingCall implements H2StreamEvents {
  readonly reader = new MessageReader(-1);
  readonly status = new GrpcCallStatus();
  /** The answer's message (the first; a second makes the answer invalid). */
  message: Buffer | null = null;
  messages = 0;
  firstByteAt = 0;
  readError: string | null = null;
  stream: H2Stream | null = null;
  /** The open and write of the call, µs. */
  sendUs = 0;

  constructor(
    private readonly owner: GrpcUnaryConnection,
    readonly startAt: number,
  ) {}

  private readonly onMessage = (m: Buffer): void => {
    this.messages += 1;
    this.message ??= m;
  };

  onHeaders(fields: HeaderField[], endStream: boolean): void {
    this.status.read(fields);
    if (endStream) this.owner.settle(this, this.outcome());
  }

  onData(chunk: Buffer, endStream: boolean): void {
    if (this.firstByteAt === 0) this.firstByteAt = performance.now();
    this.readError ??= this.reader.push(chunk, this.onMessage)?.details ?? null;
    // An answer that ends with DATA has no trailers, so no status.
    if (endStream) this.owner.settle(this, this.readError ?? this.status.describe());
  }

  onAbort(reason: string): void {
    this.owner.settle(this, reason);
  }

  /** null for a valid answer, else why the call failed. */
  private outcome(): string | null {
    if (this.readError !== null) return this.readError;
    if (!this.status.ok) return this.status.describe();
    if (this.reader.midMessage) return 'the answer ended inside a message';
    if (this.messages !== 1 || this.message === null) {
      return `expected one ModelInferResponse, got ${this.messages} messages`;
    }
    return checkInferReply(this.message);
  }
}

export class GrpcUnaryConnection implements MultiplexedConnection<Buffer> {
  /** In send order, so the timeout walk stops at the first young call. */
  private readonly pending = new Set<PendingCall>();
  private readonly headerBlock: Buffer;
  private closed = false;
  /** The server sent GOAWAY: calls under way finish, then the connection is replaced. */
  private goingAway = false;

  private constructor(
    private readonly client: H2Client,
    target: GrpcTarget,
    private readonly onOutcome: GrpcOutcomeCallback<GrpcUnaryConnection>,
    private readonly onClosed: (conn: GrpcUnaryConnection) => void,
  ) {
    this.headerBlock = grpcCallHeaderBlock(target, MODEL_INFER_PATH);
    client.attach({
      onGoaway: () => {
        this.goingAway = true;
        if (this.pending.size === 0) this.fail('the server sent GOAWAY');
      },
      onClose: (reason) => this.fail(reason),
    });
  }

  static async open(
    target: GrpcTarget,
    onOutcome: GrpcOutcomeCallback<GrpcUnaryConnection>,
    onClosed: (conn: GrpcUnaryConnection) => void,
    timeoutMs: number,
  ): Promise<GrpcUnaryConnection> {
    const client = await connectSession(target, timeoutMs);
    return new GrpcUnaryConnection(client, target, onOutcome, onClosed);
  }

  get usable(): boolean {
    return !this.closed && !this.goingAway && this.client.usable;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** `request` is the framed ModelInferRequest (gRPC prefix included). */
  send(request: Buffer, startAt: number): void {
    const before = performance.now();
    const call = new PendingCall(this, startAt);
    this.pending.add(call);
    call.stream = this.client.open(this.headerBlock, call, request, true);
    call.sendUs = (performance.now() - before) * 1000;
  }

  expire(now: number, timeoutMs: number): void {
    for (const p of this.pending) {
      if (now - p.startAt <= timeoutMs) return;
      this.pending.delete(p);
      if (p.stream !== null) this.client.cancel(p.stream);
      this.report(p, now, `no response within ${timeoutMs} ms`);
    }
  }

  close(): void {
    this.client.close('closed by the generator');
  }

  /** A call's end; a timed-out call's late end is skipped quietly. */
  settle(call: PendingCall, error: string | null): void {
    if (!this.pending.delete(call)) return;
    this.report(call, performance.now(), error);
    if (this.goingAway && this.pending.size === 0) this.fail('the server sent GOAWAY');
  }

  /** Fails every pending call once, ends the connection, and tells the owner. */
  private fail(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    const now = performance.now();
    const failed = [...this.pending];
    this.pending.clear();
    for (const p of failed) this.report(p, now, reason);
    this.client.close(reason);
    this.onClosed(this);
  }

  private report(p: PendingCall, doneAt: number, error: string | null): void {
    const recvUs = p.firstByteAt === 0 ? 0 : (doneAt - p.firstByteAt) * 1000;
    this.onOutcome(this, { error, startAt: p.startAt, doneAt, sendUs: p.sendUs, recvUs });
  }
}
