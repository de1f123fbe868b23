// HttpDrain alone: which replies get `Connection: close`, without touching shared header objects or
// adding a promise hop to synchronous handlers, and when whenIdle resolves.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpCall, HttpReply } from '../../../src/http/front-end.js';
import { HttpDrain } from '../../../src/http/http-drain.js';

const SHARED_HEADERS = Object.freeze({ 'content-type': 'application/json' });
const CALL = {} as HttpCall; // the handlers below never read it

void describe('HttpDrain', () => {
  void it('adds Connection: close only to replies made once the drain has begun', async () => {
    const drain = new HttpDrain();
    const handler = drain.wrap(() => ({ status: 200, headers: SHARED_HEADERS, body: 'x' }));
    const before = handler(CALL) as HttpReply;
    assert.deepEqual(before.headers, SHARED_HEADERS);
    drain.begin();
    const during = handler(CALL) as HttpReply;
    assert.ok(!(during instanceof Promise), 'a synchronous handler stays synchronous');
    assert.deepEqual(during.headers, { 'content-type': 'application/json', connection: 'close' });
    assert.deepEqual(SHARED_HEADERS, { 'content-type': 'application/json' });

    // An async handler's reply is marked when it is ready: a call in flight at begin() closes too.
    const late = new HttpDrain();
    let finish: (r: HttpReply) => void = () => undefined;
    const pending = late.wrap(() => new Promise<HttpReply>((resolve) => (finish = resolve)))(CALL);
    late.begin();
    const onFinished = (): void => undefined;
    finish({ status: 204, body: '', onFinished });
    const reply = await pending;
    assert.equal(reply.headers?.connection, 'close');
    assert.equal(reply.onFinished, onFinished, 'the release hook is kept');
  });

  void it('whenIdle resolves at once with nothing open, else when the last request closes', async () => {
    const drain = new HttpDrain();
    await drain.whenIdle();
    drain.opened();
    drain.opened();
    let idle = false;
    const waiting = drain.whenIdle().then(() => {
      idle = true;
    });
    drain.closed();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(idle, false);
    assert.equal(drain.openRequests, 1);
    drain.closed();
    await waiting;
    assert.equal(drain.openRequests, 0);
  });
});
