// Conformance cases about the life of calls and of the adapter: a client leaving while the handler
// awaits, stopAccepting with calls in flight, close(), and listening on a port that is taken.

import assert from 'node:assert/strict';
import type { AbortLike } from '../../src/execution/abort-like.js';
import type { ConformanceCase } from './conformance-case.js';
import type { EchoSummary } from './echo-handler.js';
import { connectionRefused, RawConnection, rawRequest } from './raw-http.js';

async function aborted(signal: AbortLike): Promise<void> {
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
}

export const LIFECYCLE_CASES: readonly ConformanceCase[] = [
  {
    id: 'client-abort',
    title: 'the client leaving while the handler awaits aborts the call; the late reply is dropped',
    async run({ port, echo }) {
      const conn = await RawConnection.open(port);
      await conn.send(rawRequest('POST', '/hold/a', [['Content-Length', '4']], 'data'));
      const call = await echo.callTo('/hold/a');
      assert.equal(call.signal.aborted, false);
      conn.destroy();
      await aborted(call.signal);
      const reason: unknown = call.signal.reason;
      assert.equal(
        (reason as { code?: unknown }).code,
        'CANCELLED',
        'the abort reason is catalogued',
      );
      // The handler now returns its reply; the adapter must drop it (and for uWS not touch the
      // dead response object) and report it undelivered.
      echo.release('/hold/a');
      assert.equal(await echo.finishOf('/hold/a'), false);

      const again = await RawConnection.open(port);
      await again.send(rawRequest('GET', '/after-abort'));
      assert.equal((await again.response()).status, 200, 'the server still answers');
      again.destroy();
    },
  },
  {
    id: 'stop-accepting',
    title: 'stopAccepting refuses new connections; in-flight and open keep-alive ones are served',
    async run({ port, echo, frontEnd }) {
      const idle = await RawConnection.open(port);
      await idle.send(rawRequest('GET', '/before'));
      assert.equal((await idle.response()).status, 200);

      const busy = await RawConnection.open(port);
      await busy.send(rawRequest('GET', '/hold/in-flight'));
      await echo.callTo('/hold/in-flight');

      await frontEnd.stopAccepting();
      assert.equal(await connectionRefused(port), true, 'a new connection must be refused');

      echo.release('/hold/in-flight');
      const reply = await busy.response();
      assert.equal(reply.status, 200);
      assert.equal((JSON.parse(reply.body.toString()) as EchoSummary).path, '/hold/in-flight');

      // Triton serves an existing keep-alive connection after SIGINT; so do the adapters.
      await idle.send(rawRequest('GET', '/after-stop'));
      assert.equal((await idle.response()).status, 200);
      idle.destroy();
      busy.destroy();
    },
  },
  {
    id: 'close-aborts-in-flight',
    title: 'close() ends every connection and aborts calls still in flight',
    async run({ port, echo, frontEnd }) {
      const idle = await RawConnection.open(port);
      await idle.send(rawRequest('GET', '/idle'));
      await idle.response();
      const busy = await RawConnection.open(port);
      await busy.send(rawRequest('GET', '/hold/closing'));
      const call = await echo.callTo('/hold/closing');

      await frontEnd.close();
      await aborted(call.signal);
      assert.equal(await busy.next(), 'closed');
      await idle.closed();
      assert.equal(await connectionRefused(port), true);
      echo.release('/hold/closing');
      assert.equal(await echo.finishOf('/hold/closing'), false);
    },
  },
  {
    id: 'port-in-use',
    title: 'listening on a port another instance holds fails instead of sharing it',
    async run({ startAnother }) {
      // Bound to a fixed port: an ephemeral bind is never shared, so port 0 would hide SO_REUSEPORT
      // (which uWS sets unless told not to).
      const probe = await startAnother(0);
      await probe.frontEnd.close();
      await probe.frontEnd.close(); // close() twice is harmless
      const fixed = await startAnother(probe.port);
      assert.equal(fixed.port, probe.port);
      await assert.rejects(startAnother(probe.port));
    },
  },
];
