// One gRPC channel (one HTTP/2 connection) of the load generator carrying many ModelInfer calls at
// once (`-i grpc`). Requests go out as their pre-serialized bytes and answers come back as bytes
// (identity serializers): a call that ends with status OK succeeded, anything else failed with its
// status. Every call ends in exactly one outcome: its answer, a timeout (the call is then
// cancelled), or the channel being closed.

import { Metadata, type Client, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { describeGrpcError, MODEL_INFER_PATH } from '../model/grpc-service.js';
import {
  connectChannel,
  passBytes,
  type GrpcOutcomeCallback,
  type GrpcTarget,
} from './grpc-channel.js';
import type { MultiplexedConnection } from './multiplexed-connection.js';

interface PendingCall {
  readonly startAt: number;
  readonly sendUs: number;
  readonly call: ClientUnaryCall;
}

export class GrpcUnaryConnection implements MultiplexedConnection<Buffer> {
  /** In send order, so the timeout walk stops at the first young call. */
  private readonly pending = new Map<number, PendingCall>();
  private nextKey = 1;
  private closed = false;

  private constructor(
    private readonly client: Client,
    private readonly onOutcome: GrpcOutcomeCallback<GrpcUnaryConnection>,
    private readonly onClosed: (conn: GrpcUnaryConnection) => void,
  ) {}

  static async open(
    target: GrpcTarget,
    onOutcome: GrpcOutcomeCallback<GrpcUnaryConnection>,
    onClosed: (conn: GrpcUnaryConnection) => void,
    timeoutMs: number,
  ): Promise<GrpcUnaryConnection> {
    return new GrpcUnaryConnection(await connectChannel(target, timeoutMs), onOutcome, onClosed);
  }

  get usable(): boolean {
    return !this.closed;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  send(request: Buffer, startAt: number): void {
    const key = this.nextKey;
    this.nextKey += 1;
    const before = performance.now();
    // waitForReady: while the connection is down a call waits for it (and times out) rather than
    // failing at once, so a closed loop cannot spin on a server that went away. A fresh Metadata
    // per call: grpc-js may add to the one it is given.
    const call = this.client.makeUnaryRequest(
      MODEL_INFER_PATH,
      passBytes,
      passBytes,
      request,
      new Metadata({ waitForReady: true }),
      (err: ServiceError | null) => this.onAnswer(key, err),
    );
    this.pending.set(key, { startAt, sendUs: (performance.now() - before) * 1000, call });
  }

  expire(now: number, timeoutMs: number): void {
    for (const [key, p] of this.pending) {
      if (now - p.startAt <= timeoutMs) return;
      this.pending.delete(key);
      p.call.cancel();
      this.report(p, now, `no response within ${timeoutMs} ms`);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const now = performance.now();
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) {
      p.call.cancel();
      this.report(p, now, 'closed by the generator');
    }
    this.client.close();
    this.onClosed(this);
  }

  private onAnswer(key: number, err: ServiceError | null): void {
    const p = this.pending.get(key);
    // A timed-out or cancelled call's late end is skipped quietly.
    if (p === undefined) return;
    this.pending.delete(key);
    this.report(p, performance.now(), err === null ? null : describeGrpcError(err));
  }

  private report(p: PendingCall, doneAt: number, error: string | null): void {
    this.onOutcome(this, { error, startAt: p.startAt, doneAt, sendUs: p.sendUs, recvUs: 0 });
  }
}
