// Conformance cases about clients that neither read nor close: after a timeout answer the server
// must let go of the socket (its file descriptor) within 2 s of the timeout, whatever the client
// does, and the connection cap must count every socket the server still holds.
//
// The server's sockets are counted in /proc/self/fd: the clients live in this process too, but
// they stay open for the whole case, so any change in the count is the server's.

import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import type { ConformanceCase } from './conformance-case.js';
import { RawConnection, rawRequest } from './raw-http.js';

const FAST = { headersTimeoutMs: 1000, bodyTimeoutMs: 1000, keepAliveTimeoutMs: 1000 };

/** How long past its timeout a socket may stay open (the target). */
const RELEASE_SLACK_MS = 2000;

/** Socket file descriptors this process (or process `pid`) holds now. */
export function openSockets(pid: number | 'self' = 'self'): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n += 1;
    } catch {
      // closed between the listing and the read
    }
  }
  return n;
}

/**
 * A client that never reads and never closes its side: the server's answer and its FIN stay unread
 * in this socket's buffer, so only the server closing its own end releases the server's fd.
 */
export async function deafClient(port: number, send: string): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  if (send !== '') socket.write(send);
  socket.pause();
  return socket;
}

/** Polls `count` until it is at most `target`; returns the ms it took, or rejects after `withinMs`. */
async function dropsTo(
  count: () => number,
  target: number,
  withinMs: number,
  what: string,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const now = count();
    if (now <= target) return Date.now() - started;
    if (Date.now() - started > withinMs) {
      throw new Error(
        `${what}: the server still holds ${now - target} socket(s) after ${withinMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const HELD_SOCKET_CASES: readonly ConformanceCase[] = [
  {
    id: 'timed-out-sockets-released',
    title: 'sockets of clients that neither read nor close are released within 2 s of a timeout',
    limits: FAST,
    async run(ctx) {
      const timeout = Math.max(
        ctx.limits.headersTimeoutMs ?? 0,
        ctx.limits.keepAliveTimeoutMs ?? 0,
        ctx.limits.bodyTimeoutMs ?? 0,
      );
      const before = openSockets();
      const started = Date.now();
      const clients = await Promise.all([
        deafClient(ctx.port, ''), // silent: head timeout
        deafClient(ctx.port, 'GET /partial HTTP/1.1\r\nHost: x\r\n'), // head never finished
        deafClient(ctx.port, rawRequest('GET', '/idle').toString('latin1')), // then idle
        deafClient(ctx.port, rawRequest('POST', '/stalled', [['Content-Length', '10']]).toString()),
      ]);
      try {
        // Both ends of each connection are in this process until the server lets go of its own.
        await dropsTo(openSockets, before + 2 * clients.length, 1000, 'accepting');
        const waited = await dropsTo(
          openSockets,
          before + clients.length,
          timeout + RELEASE_SLACK_MS + 1000,
          'after the timeouts',
        );
        const releasedAt = Date.now() - started;
        assert.ok(
          releasedAt <= timeout + RELEASE_SLACK_MS + 500,
          `released ${releasedAt} ms after connecting (timeout ${timeout} ms, waited ${waited} ms)`,
        );
      } finally {
        for (const c of clients) c.destroy();
      }
    },
  },
  {
    id: 'cap-counts-held-sockets',
    title: 'sockets timed out under the connection cap are released, and the cap serves again',
    limits: { ...FAST, maxConnections: 2 },
    async run(ctx) {
      const cap = ctx.limits.maxConnections ?? 0;
      assert.ok(cap > 0, 'a cap is set');
      const before = openSockets();
      // The cap is full of clients that send nothing, read nothing and never close.
      const clients = await Promise.all(
        Array.from({ length: cap }, () => deafClient(ctx.port, '')),
      );
      const started = Date.now();
      const within = (ctx.limits.headersTimeoutMs ?? 0) + RELEASE_SLACK_MS + 500;
      try {
        let served = false;
        while (!served && Date.now() - started < within) {
          const held = openSockets() - before - clients.length;
          assert.ok(held <= cap, `the server holds ${held} sockets over a cap of ${cap}`);
          const probe = await RawConnection.open(ctx.port);
          await probe.send(rawRequest('GET', '/after-timeout')).catch(() => undefined);
          served = (await probe.next()) !== 'closed';
          probe.destroy();
          if (!served) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.ok(
          served,
          `no connection was served within ${within} ms: timed-out sockets fill the cap`,
        );
      } finally {
        for (const c of clients) c.destroy();
      }
    },
  },
];
