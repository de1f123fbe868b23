// One WebSocket of the load generator with many requests in flight, each matched to its response
// by the id it was sent with. Every request ends in exactly one outcome: its response, a timeout
// (the request is then cancelled on the server), or the socket failing.

import net from 'node:net';
import {
  buildHandshake,
  checkUpgradeAnswer,
  clientFrame,
  FrameReader,
  OPCODE,
} from './ws-framing.js';
import { readReply, type WsFrameTemplate } from './ws-request.js';
import { msgpackClientCodec } from 'infernode/tooling';
import type { MultiplexedConnection, RequestOutcome } from './multiplexed-connection.js';

export interface WsTarget {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly subprotocol: string;
}

interface Pending {
  readonly startAt: number;
  readonly sendUs: number;
}

export type WsOutcomeCallback = (conn: WsConnection, outcome: RequestOutcome) => void;

export class WsConnection implements MultiplexedConnection<WsFrameTemplate> {
  private readonly pending = new Map<number, Pending>();
  private readonly reader: FrameReader;
  private nextId = 1;
  private closed = false;
  private closeReason = '';

  private constructor(
    private readonly socket: net.Socket,
    private readonly onOutcome: WsOutcomeCallback,
    private readonly onClosed: (conn: WsConnection) => void,
  ) {
    this.reader = new FrameReader({
      message: (payload, firstByteAt, now) => this.onMessage(payload, firstByteAt, now),
      control: (opcode, payload) => this.onControl(opcode, payload),
      protocolError: (reason) => this.fail(`WebSocket protocol error: ${reason}`),
    });
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk, performance.now()));
    socket.on('error', (e) => this.fail(`connection error: ${e.message}`));
    socket.on('close', () => this.fail(this.closeReason || 'connection closed by the server'));
  }

  /** Connects and upgrades; resolves once the server accepted the subprotocol. */
  static open(
    target: WsTarget,
    onOutcome: WsOutcomeCallback,
    onClosed: (conn: WsConnection) => void,
    timeoutMs: number,
  ): Promise<WsConnection> {
    const hs = buildHandshake(target.host, target.port, target.path, target.subprotocol);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: target.host, port: target.port });
      // Nagle's algorithm would hold small frames back waiting for an ACK: pure added latency.
      socket.setNoDelay(true);
      let head = Buffer.alloc(0);
      const timer = setTimeout(
        () => done(new Error(`no upgrade answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const done = (e: Error | null, rest?: Buffer): void => {
        clearTimeout(timer);
        socket.removeListener('data', onData);
        socket.removeListener('error', done);
        socket.removeListener('close', onClose);
        if (e !== null) {
          socket.destroy();
          reject(e);
          return;
        }
        const conn = new WsConnection(socket, onOutcome, onClosed);
        if (rest !== undefined && rest.length > 0) conn.reader.push(rest, performance.now());
        resolve(conn);
      };
      const onData = (chunk: Buffer): void => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) {
          if (head.length > 16384) done(new Error('WebSocket upgrade: answer head over 16 KiB'));
          return;
        }
        try {
          checkUpgradeAnswer(
            head.toString('latin1', 0, end),
            hs.expectedAccept,
            target.subprotocol,
          );
        } catch (e) {
          done(e as Error);
          return;
        }
        done(null, head.subarray(end + 4));
      };
      const onClose = (): void =>
        done(new Error('WebSocket upgrade: the server closed the connection'));
      socket.on('data', onData);
      socket.once('error', done);
      socket.once('close', onClose);
      socket.once('connect', () => socket.write(hs.request));
    });
  }

  get usable(): boolean {
    return !this.closed;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Sends one request; its latency will count from `startAt` (performance.now() units). */
  send(template: WsFrameTemplate, startAt: number): void {
    const id = this.nextId;
    // uint32 ids, wrapping long before any id could still be in flight.
    this.nextId = id === 0xffffffff ? 1 : id + 1;
    const before = performance.now();
    const parts = template.bytesFor(id);
    if (parts.length === 1) {
      this.socket.write(parts[0]);
    } else {
      this.socket.cork();
      this.socket.write(parts[0]);
      this.socket.write(parts[1]);
      this.socket.uncork();
    }
    this.pending.set(id, { startAt, sendUs: (performance.now() - before) * 1000 });
  }

  /**
   * Fails requests older than `timeoutMs` and asks the server to drop them. Pending requests are
   * in send order with non-decreasing start times, so the walk stops at the first young one.
   */
  expire(now: number, timeoutMs: number): void {
    for (const [id, p] of this.pending) {
      if (now - p.startAt <= timeoutMs) return;
      this.pending.delete(id);
      if (!this.closed)
        this.socket.write(clientFrame(OPCODE.binary, msgpackClientCodec.encodeCancel(id)));
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
    if (this.closed) return;
    this.closeReason = 'closed by the generator';
    this.socket.destroy();
  }

  private onMessage(payload: Buffer, firstByteAt: number, now: number): void {
    const reply = readReply(payload);
    const p = reply.id === undefined ? undefined : this.pending.get(reply.id);
    if (reply.id === undefined || p === undefined) {
      // A response that matches nothing (a timed-out request's late answer is skipped quietly).
      if (reply.id === undefined) this.fail(`a response with no usable id: ${reply.error ?? ''}`);
      return;
    }
    this.pending.delete(reply.id);
    this.onOutcome(this, {
      error: reply.error,
      startAt: p.startAt,
      doneAt: now,
      sendUs: p.sendUs,
      recvUs: (now - firstByteAt) * 1000,
    });
  }

  private onControl(opcode: number, payload: Buffer): void {
    switch (opcode) {
      case OPCODE.ping:
        this.socket.write(clientFrame(OPCODE.pong, payload));
        return;
      case OPCODE.pong:
        return;
      case OPCODE.close: {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        const reason = payload.toString('utf8', 2);
        this.fail(`the server closed the WebSocket (${code}${reason === '' ? '' : `: ${reason}`})`);
        return;
      }
      default:
        this.fail(`unexpected WebSocket opcode ${opcode}`);
    }
  }

  /** Fails every pending request once, closes the socket, and tells the owner. */
  private fail(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    this.socket.destroy();
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
