// The write side of the generator's HTTP/2 connection: every frame produced during one tick (a
// batch of calls, their DATA, control frames) leaves in one socket write at the tick's end. One
// socket.write per frame would cost a write request (and often a syscall) per frame: several per
// call.

import type net from 'node:net';

/** Batches up to this size are joined into one buffer; a larger one goes out corked, uncopied. */
const JOIN_BYTES = 64 * 1024;

export class SocketWriter {
  private out: Buffer[] = [];
  private outBytes = 0;
  private queued = false;

  constructor(private readonly socket: net.Socket) {}

  /** Queues `bytes` (not copied: the caller must not change them) for this tick's write. */
  send(bytes: Buffer): void {
    this.out.push(bytes);
    this.outBytes += bytes.length;
    if (!this.queued) {
      this.queued = true;
      process.nextTick(this.flush);
    }
  }

  /** Writes what is queued now (before the socket is ended, say). */
  readonly flush = (): void => {
    this.queued = false;
    const out = this.out;
    this.out = [];
    const bytes = this.outBytes;
    this.outBytes = 0;
    if (out.length === 0 || this.socket.destroyed) return;
    if (out.length === 1) {
      this.socket.write(out[0]!);
    } else if (bytes <= JOIN_BYTES) {
      this.socket.write(Buffer.concat(out, bytes));
    } else {
      this.socket.cork();
      for (const b of out) this.socket.write(b);
      this.socket.uncork();
    }
  };
}
