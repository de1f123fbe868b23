// Unit tests for the one HTTP error reply: Triton's `{"error": message}` body.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fail } from '../../../src/errors.js';
import { errorReply, handlerFailureReply } from '../../../src/http/error-reply.js';

void test('error replies are Triton-shaped: catalogue status and {"error": message}', () => {
  const reply = errorReply(fail('BODY_TOO_LARGE', 'too big'));
  assert.equal(reply.status, 400);
  assert.deepEqual(reply.headers, { 'content-type': 'application/json' });
  assert.equal(reply.body, '{"error":"too big"}');
  const hidden = handlerFailureReply(new Error('/secret/path'));
  assert.equal(hidden.status, 500);
  assert.equal(hidden.body, '{"error":"internal error"}');
});

void test('a full client-memory budget is a 503 that says when to retry', () => {
  const reply = errorReply(fail('CLIENT_MEMORY_FULL', 'full'));
  assert.equal(reply.status, 503);
  assert.deepEqual(reply.headers, { 'content-type': 'application/json', 'retry-after': '1' });
  assert.equal(reply.body, '{"error":"full"}');
});
