// The call both adapters hand to the handler: plain data read up front, and a body the handler can
// let go of once decoded (a large JSON body then need not live as long as its request).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdapterCall, splitTarget } from '../../../src/http/http-call.js';

void describe('AdapterCall', () => {
  const head = {
    method: 'POST',
    path: '/v2/models/m/infer',
    query: '',
    headers: new Map([['content-type', 'application/json']]),
  };

  void it('reads headers by lower-case name whatever case is asked', () => {
    const call = new AdapterCall(head, new Uint8Array(3), new AbortController().signal);
    assert.equal(call.header('Content-Type'), 'application/json');
    assert.equal(call.header('x-missing'), undefined);
  });

  void it('holds the body until the handler releases it, then an empty one', () => {
    const body = new Uint8Array([1, 2, 3]);
    const call = new AdapterCall(head, body, new AbortController().signal);
    assert.equal(call.body, body);
    call.releaseBody();
    assert.equal(call.body.byteLength, 0);
    assert.equal(body.byteLength, 3, 'the released buffer itself is left alone');
  });

  void it('splits a target into path and raw query', () => {
    assert.deepEqual(splitTarget('/v2?a=1'), { path: '/v2', query: 'a=1' });
    assert.deepEqual(splitTarget('/v2'), { path: '/v2', query: '' });
  });
});
