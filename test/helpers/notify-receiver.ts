// The receiving end of the systemd notify protocol, as systemd holds it: a unix datagram socket in
// a fresh directory, recording each datagram with its arrival time, for tests that point a
// server's $NOTIFY_SOCKET at it.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UnixDatagramSocket } from '../../src/cli/unix-datagram.js';
import { waitFor } from './wait-for.js';

export interface Notification {
  /** The datagram's text, e.g. "READY=1\nSTATUS=serving ...". */
  readonly text: string;
  /** performance.now() when it arrived. */
  readonly at: number;
}

export class NotifyReceiver {
  readonly received: Notification[] = [];

  private constructor(
    readonly socketPath: string,
    private readonly dir: string,
    private readonly socket: UnixDatagramSocket,
  ) {
    socket.onMessage((m) =>
      this.received.push({ text: m.toString('utf8'), at: performance.now() }),
    );
  }

  static async open(): Promise<NotifyReceiver> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-notify-'));
    const socketPath = path.join(dir, 'notify.sock');
    const socket = new UnixDatagramSocket();
    socket.bind(socketPath);
    return new NotifyReceiver(socketPath, dir, socket);
  }

  /** The notifications holding `field` (a whole line such as "READY=1"). */
  with(field: string): Notification[] {
    return this.received.filter((n) => n.text.split('\n').includes(field));
  }

  /** The first notification holding `field`, waiting up to `timeoutMs` for it. */
  async first(field: string, timeoutMs = 30_000): Promise<Notification | undefined> {
    const found = await waitFor(
      () => this.with(field)[0],
      (n) => n !== undefined,
      timeoutMs,
    );
    return found;
  }

  async close(): Promise<void> {
    this.socket.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * Why unix datagram sockets cannot be opened here (the optional binding exists for x64 Linux with
 * glibc only), or false: tests of the notify protocol skip with this reason.
 */
export function datagramsUnavailable(): string | false {
  try {
    new UnixDatagramSocket().close();
    return false;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** The STATUS= value of a notification, or undefined. */
export function statusOf(n: Notification): string | undefined {
  const line = n.text.split('\n').find((l) => l.startsWith('STATUS='));
  return line?.slice('STATUS='.length);
}
