// One ModelStreamInfer stream of the load generator (`-i grpc --streaming`), on a channel of its
// own, with many requests in flight, each matched to its answer by the id it was sent with. Every
// request ends in exactly one outcome: its answer, a timeout (Triton's stream has no way to
// cancel one request, so its late answer is skipped), or the stream ending.

import type { Client, ClientDuplexStream } from '@grpc/grpc-js';
import { describeGrpcError, MODEL_STREAM_INFER_PATH } from '../model/grpc-service.js';
import { readStreamReply, type GrpcStreamTemplate } from './grpc-request.js';
import {
  connectChannel,
  passBytes,
  type GrpcOutcomeCallback,
  type GrpcTarget,
} from './grpc-channel.js';
import type { MultiplexedConnection } from './multiplexed-connection.js';

interface Pending {
  readonly startAt: number;
  readonly sendUs: number;
}

export class GrpcStreamConnection implements MultiplexedConnection<GrpcStreamTemplate> {
  /** In send order, so the timeout walk stops at the first young request. */
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly client: Client,
    private readonly call: ClientDuplexStream<Buffer, Buffer>,
    private readonly onOutcome: GrpcOutcomeCallback<GrpcStreamConnection>,
    private readonly onClosed: (conn: GrpcStreamConnection) => void,
  ) {
    call.on('data', (answer: Buffer) => this.onAnswer(answer));
    call.on('error', (e) => this.fail(`the stream failed: ${describeGrpcError(e)}`));
    call.on('end', () => this.fail('the server ended the stream'));
  }

  static async open(
    target: GrpcTarget,
    onOutcome: GrpcOutcomeCallback<GrpcStreamConnection>,
    onClosed: (conn: GrpcStreamConnection) => void,
    timeoutMs: number,
  ): Promise<GrpcStreamConnection> {
    const client = await connectChannel(target, timeoutMs);
    const call = client.makeBidiStreamRequest(MODEL_STREAM_INFER_PATH, passBytes, passBytes);
    return new GrpcStreamConnection(client, call, onOutcome, onClosed);
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
    this.call.write(template.bytesFor(id));
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

  /** Fails every pending request once, ends the stream and the channel, and tells the owner. */
  private fail(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    // The cancellation surfaces as an 'error' event, which the closed flag now ignores.
    this.call.cancel();
    this.client.close();
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
