import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucket } from '../../../src/tenant/token-bucket.js';

const S = 1e9;

void describe('TokenBucket', () => {
  void it('starts full, spends a token per request, refills at rps up to burst', () => {
    const b = new TokenBucket(2, 3, 0);
    assert.ok(b.take(0));
    assert.ok(b.take(0));
    assert.ok(b.take(0));
    assert.equal(b.take(0), false);
    assert.equal(b.retryAfterS(0), 1);
    assert.equal(b.take(0.4 * S), false);
    assert.ok(b.take(0.5 * S));
    // Ten quiet seconds refill to burst, no further.
    assert.equal(b.tokens(10.5 * S), 3);
  });

  void it('Retry-After is the whole seconds until the next token, at least 1', () => {
    const b = new TokenBucket(0.25, 1, 0);
    assert.ok(b.take(0));
    assert.equal(b.retryAfterS(0), 4);
    assert.equal(b.retryAfterMs(0), 4000); // the ms field is the delay itself
    assert.equal(b.retryAfterS(3.5 * S), 1);
    assert.equal(b.retryAfterMs(3.5 * S), 500);
  });

  void it('a replacement carries the tokens left, capped at its burst', () => {
    const old = new TokenBucket(10, 10, 0);
    const next = new TokenBucket(1, 2, 0, old.tokens(0));
    assert.equal(next.tokens(0), 2);
  });
});
