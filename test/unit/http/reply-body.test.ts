// Unit tests for turning an HttpReply into what the adapters write.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { releaseOnce, toWireReply, wireOrFailure } from '../../../src/http/reply-body.js';

void test('a string body is UTF-8 bytes with its byte length', () => {
  const wire = toWireReply({ status: 200, body: 'héllo' });
  assert.equal(wire.statusLine, '200 OK');
  assert.equal(wire.totalBytes, 6);
  assert.equal(Buffer.concat(wire.chunks).toString('utf8'), 'héllo');
});

void test('a chunk list keeps its chunks (same memory, in order) and drops empty ones', () => {
  const shared = new Uint8Array(new SharedArrayBuffer(8));
  const a = shared.subarray(0, 3);
  const b = shared.subarray(3, 8);
  const wire = toWireReply({ status: 200, body: [a, new Uint8Array(0), b] });
  assert.equal(wire.chunks.length, 2);
  assert.equal(wire.chunks[0], a, 'not copied');
  assert.equal(wire.chunks[1], b);
  assert.equal(wire.totalBytes, 8);
  assert.equal(toWireReply({ status: 204, body: [] }).totalBytes, 0);
});

void test('the adapter owns Content-Length and Transfer-Encoding; other headers pass through', () => {
  const wire = toWireReply({
    status: 200,
    headers: { 'Content-Length': '99', 'transfer-encoding': 'chunked', 'x-a': 'b' },
    body: 'x',
  });
  assert.deepEqual(wire.headers, [['x-a', 'b']]);
});

void test('a header that could split the response, or a bad status, is refused', () => {
  const unsafe: Record<string, string>[] = [
    { 'x-a': 'v\r\nset-cookie: s' },
    { 'bad name': 'v' },
    { 'x-a': 'nul\u0000' },
  ];
  for (const headers of unsafe) {
    assert.throws(() => toWireReply({ status: 200, headers, body: '' }), InferenceServerError);
  }
  for (const status of [99, 100, 199, 600, 200.5, Number.NaN]) {
    assert.throws(() => toWireReply({ status, body: '' }), InferenceServerError, String(status));
  }
  const replaced = wireOrFailure({ status: 200, headers: { 'x-a': 'a\nb' }, body: 'secret' });
  assert.equal(replaced.status, 500);
  assert.equal(Buffer.concat(replaced.chunks).toString(), '{"error":"internal error"}');
});

void test('releaseOnce calls onFinished exactly once, with the first outcome', () => {
  const outcomes: boolean[] = [];
  const release = releaseOnce({ status: 200, body: '', onFinished: (d) => outcomes.push(d) });
  release(false);
  release(true);
  assert.deepEqual(outcomes, [false]);
  releaseOnce({ status: 200, body: '' })(true); // no hook: nothing to call
});
