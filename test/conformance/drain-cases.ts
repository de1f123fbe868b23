// Conformance cases about the shutdown drain (beginDrain, whenIdle): open keep-alive connections
// are still served, every reply says `Connection: close` and the connection closes after it, large
// multi-chunk replies arrive whole, and whenIdle waits for the calls in flight.

import assert from 'node:assert/strict';
import { payload, type ConformanceCase } from './conformance-case.js';
import { sha256, type EchoSummary } from './echo-handler.js';
import { RawConnection, rawRequest } from './raw-http.js';

export const DRAIN_CASES: readonly ConformanceCase[] = [
  {
    id: 'drain-keep-alive',
    title:
      'after beginDrain an open keep-alive connection is served, with Connection: close, then closed',
    async run({ port, frontEnd }) {
      const idle = await RawConnection.open(port);
      await idle.send(rawRequest('GET', '/before'));
      const before = await idle.response();
      assert.equal(before.status, 200);
      assert.notEqual(before.headers.get('connection'), 'close', 'keep-alive before the drain');

      frontEnd.beginDrain();
      await idle.send(rawRequest('GET', '/during'));
      const during = await idle.response();
      assert.equal(during.status, 200);
      assert.equal((JSON.parse(during.body.toString()) as EchoSummary).path, '/during');
      assert.equal(during.headers.get('connection'), 'close');
      await idle.closed();

      // beginDrain alone does not stop accepting: a new connection is served the same way.
      const fresh = await RawConnection.open(port);
      await fresh.send(rawRequest('GET', '/new-during'));
      const reply = await fresh.response();
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('connection'), 'close');
      await fresh.closed();
    },
  },
  {
    id: 'drain-in-flight',
    title:
      'a call in flight when the drain begins is answered with Connection: close; whenIdle waits for it',
    async run({ port, echo, frontEnd }) {
      const busy = await RawConnection.open(port);
      await busy.send(rawRequest('GET', '/hold/drain'));
      await echo.callTo('/hold/drain');
      frontEnd.beginDrain();
      let idle = false;
      const whenIdle = frontEnd.whenIdle().then(() => {
        idle = true;
      });
      // Let any wrongly-early resolution run before checking it has not happened.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(idle, false, 'whenIdle waits while a call is in flight');
      echo.release('/hold/drain');
      const reply = await busy.response();
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('connection'), 'close');
      await busy.closed();
      await whenIdle;
      assert.equal(await echo.finishOf('/hold/drain'), true);
    },
  },
  {
    id: 'drain-large-reply',
    title:
      'a multi-chunk reply of shared memory arrives whole during a drain, then the connection closes',
    async run({ port, frontEnd }) {
      // Larger than a loopback socket takes at once: the adapter must finish it under backpressure.
      const body = payload(8 * 1024 * 1024);
      frontEnd.beginDrain();
      const conn = await RawConnection.open(port);
      await conn.send(
        rawRequest(
          'POST',
          '/bytes?chunks=5&shared=1',
          [['Content-Length', String(body.byteLength)]],
          body,
        ),
      );
      const reply = await conn.response();
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('connection'), 'close');
      assert.equal(reply.body.byteLength, body.byteLength);
      assert.equal(sha256(reply.body), sha256(body));
      await conn.closed();
      await frontEnd.whenIdle();
    },
  },
];
