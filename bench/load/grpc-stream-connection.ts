// One ModelStreamInfer stream of the load generator (`-i grpc --streaming`), on an HTTP/2
// connection of its own, with many requests in flight, each matched to its answer by the id it was
// sent with. Requests are written as pre-framed bytes on the one long-lived HTTP/2 stream; answers
// are cut out of its DATA frames. Every request ends in exactly one outcome: its answer, a timeout
// (Triton's stream has no way to cancel one request, so its late answer is skipped), or the stream
// ending.

import { MODEL_STREAM_INFER_PATH } from '../model/grpc-service.js';
import {
  connectSession,
  GrpcCallStatus,
  grpcCallHeaderBlock,
  type GrpcOutcomeCallback,
  type GrpcTarget,
} from './grpc-channel.js';
import { MessageReader } from 'infernode/tooling';
import { readStreamReply, type GrpcStreamTemplate } from './grpc-request.js';
import type { H2Client } from './h2-client.js';
import type { H2Stream, H2StreamEvents } from './h2-stream.js';
import type { HeaderField } from './h2-header-block.js';
import type { MultiplexedConnection } from './multiplexed-connection.js';

interface Pending {
  readonly startAt: number;
  readonly sendUs: number;
}

export class GrpcStreamConnection
  implements MultiplexedConnection<GrpcStreamTemplate>, H2StreamEvents
{
  /** In send order, so the timeout walk stops at the first young request. */
  private readonly pending = new Map<number, Pending>();
  private readonly reader = new MessageReader(-1);
  private readonly status = new GrpcCallStatus();
  private readonly onMessage = (m: Buffer): void => this.onAnswer(m);
  /** null only while the constructor opens it. */
  private stream: H2Stream | null = null;
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly client: H2Client,
    target: GrpcTarget,
    private readonly onOutcome: GrpcOutcomeCallback<GrpcStreamConnection>,
    private readonly onClosed: (conn: GrpcStreamConnection) => void,
  ) {
    client.attach({
      // The stream goes on until the server ends it; then fail() replaces the connection.
      onGoaway: () => undefined,
      onClose: (reason) => this.fail(reason),
    });
    this.stream = client.open(
      grpcCallHeaderBlock(target, MODEL_STREAM_INFER_PATH),
      this,
      null,
      false,
    );
  }

  static async open(
    target: GrpcTarget,
    onOutcome: GrpcOutcomeCallback<GrpcStreamConnection>,
    onClosed: (conn: GrpcStreamConnection) => void,
    timeoutMs: number,
  ): Promise<GrpcStreamConnection> {
    const client = await connectSession(target, timeoutMs);
    return new GrpcStreamConnection(client, target, onOutcome, onClosed);
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
    // Queued for this tick's one write; the loop's share bounds what is in flight.
    if (this.stream !== null) this.client.write(this.stream, template.bytesFor(id), false);
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

  onHeaders(fields: HeaderField[], endStream: boolean): void {
    this.status.read(fields);
    if (endStream) this.fail(this.endReason());
  }

  onData(chunk: Buffer, endStream: boolean): void {
    const bad = this.reader.push(chunk, this.onMessage);
    if (bad !== undefined) this.fail(`an unreadable answer: ${bad.details}`);
    else if (endStream) this.fail(this.endReason());
  }

  onAbort(reason: string): void {
    this.fail(reason);
  }

  private endReason(): string {
    return `the server ended the stream: ${this.status.describe()}`;
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
    if (this.stream !== null) this.client.cancel(this.stream);
    this.client.close(reason);
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
