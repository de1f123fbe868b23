// Conformance cases about connection limits: clients that trickle a head or a body, connections
// that never send a request, idle keep-alive connections, and the connection cap. Each slow client
// must be closed by the server (never served), and the server must stay live for everyone else.

import assert from 'node:assert/strict';
import type { CaseContext, ConformanceCase } from './conformance-case.js';
import { RawConnection, rawRequest } from './raw-http.js';

const FAST = { headersTimeoutMs: 1000, bodyTimeoutMs: 1000, keepAliveTimeoutMs: 1000 };

/** Resolves with the ms until the server closed `conn`, or rejects after `withinMs`. */
async function closedWithin(conn: RawConnection, withinMs: number, what: string): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      conn.closed(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: still open after ${withinMs} ms`)),
          withinMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
  return Date.now() - started;
}

/** Writes `piece` every `everyMs` until the connection closes. */
function trickle(conn: RawConnection, piece: string, everyMs: number): () => void {
  const timer = setInterval(() => {
    conn.send(piece).catch(() => clearInterval(timer));
  }, everyMs);
  return () => clearInterval(timer);
}

async function assertLive(ctx: CaseContext): Promise<void> {
  const conn = await RawConnection.open(ctx.port);
  await conn.send(rawRequest('GET', '/live'));
  assert.equal((await conn.response()).status, 200, 'the server still answers');
  conn.destroy();
}

export const LIMIT_CASES: readonly ConformanceCase[] = [
  {
    id: 'slow-clients-closed',
    title:
      'a trickled head, a trickled body, a silent and an idle keep-alive connection are closed',
    limits: FAST,
    async run(ctx) {
      const timeout = Math.max(
        ctx.limits.headersTimeoutMs ?? 0,
        ctx.limits.bodyTimeoutMs ?? 0,
        ctx.limits.keepAliveTimeoutMs ?? 0,
      );
      // Each slow client sends something more often than the timeout, so only a timeout that is
      // not reset by trickled bytes (head), or a bound on the whole request, closes it.
      const every = Math.max(100, Math.floor(timeout / 4));
      const head = await RawConnection.open(ctx.port);
      await head.send('POST /slow-head HTTP/1.1\r\nHost: conformance\r\n');
      const stopHead = trickle(head, 'X-Slow: 1\r\n', every);

      const body = await RawConnection.open(ctx.port);
      await body.send(rawRequest('POST', '/slow-body', [['Content-Length', '1000000']]));
      // A body stalls (no byte for longer than the body timeout) after a first piece.
      await body.send('x');

      const silent = await RawConnection.open(ctx.port);

      const idle = await RawConnection.open(ctx.port);
      await idle.send(rawRequest('GET', '/before-idle'));
      assert.equal((await idle.response()).status, 200);

      // Generous: the bound is what a missing timeout fails, not how precise the timer is.
      const within = timeout * 3 + 5000;
      try {
        await Promise.all([
          closedWithin(head, within, 'trickled head'),
          closedWithin(body, within, 'stalled body'),
          closedWithin(silent, within, 'silent connection'),
          closedWithin(idle, within, 'idle keep-alive connection'),
        ]);
      } finally {
        stopHead();
        for (const conn of [head, body, silent, idle]) conn.destroy();
      }
      const served = ctx.echo.calls.map((c) => c.summary.path);
      assert.ok(!served.includes('/slow-head'), 'the trickled head reached the handler');
      assert.ok(!served.includes('/slow-body'), 'the stalled body reached the handler');
      await assertLive(ctx);
    },
  },
  {
    id: 'connection-cap',
    title: 'connections over --http-max-connections are closed at once; freed slots are reused',
    limits: { ...FAST, maxConnections: 3 },
    async run(ctx) {
      const held = await Promise.all([0, 1, 2].map(() => RawConnection.open(ctx.port)));
      // Each held connection is known to the server once it has answered on it.
      for (const conn of held) {
        await conn.send(rawRequest('GET', '/held'));
        assert.equal((await conn.response()).status, 200);
      }
      const over = await RawConnection.open(ctx.port);
      await over.send(rawRequest('GET', '/over-cap')).catch(() => undefined);
      assert.equal(await over.next(), 'closed', 'a fourth connection was served');
      over.destroy();
      held[0]?.destroy();
      // The freed slot is taken by the next connection (give the server a moment to see the close).
      let served = false;
      for (let attempt = 0; attempt < 50 && !served; attempt += 1) {
        const next = await RawConnection.open(ctx.port);
        await next.send(rawRequest('GET', '/after-free')).catch(() => undefined);
        served = (await next.next()) !== 'closed';
        next.destroy();
        if (!served) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(served, 'no connection was served after one was freed');
      for (const conn of held) conn.destroy();
      assert.ok(
        !ctx.echo.calls.some((c) => c.summary.path === '/over-cap'),
        'the over-cap request reached the handler',
      );
    },
  },
];
