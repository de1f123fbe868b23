// The response cache's key (from real validated requests) and the local LRU under its byte budget.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateRequest } from '../../../src/dataplane/validate-request.js';
import { cacheKey, sameKey, type CacheKey } from '../../../src/cache/cache-key.js';
import { ENTRY_OVERHEAD_BYTES, LocalCache } from '../../../src/cache/local-cache.js';
import type { DecodedRequest } from '../../../src/protocol/inference-request.js';
import { MODELS } from '../dataplane/validation-models.js';

const ctx = { signal: new AbortController().signal, arrivalNs: 0, maxInputBytes: 1 << 20 };
const range = (start: number) => Array.from({ length: 16 }, (_, i) => start + i);

function simple(a: number, outputs?: string[], shape = [1, 16]): CacheKey {
  const request: DecodedRequest = {
    parameters: {},
    inputs: [
      {
        name: 'INPUT0',
        datatype: 'INT32',
        shape,
        parameters: {},
        data: { kind: 'json', values: range(a) },
      },
      {
        name: 'INPUT1',
        datatype: 'INT32',
        shape,
        parameters: {},
        data: { kind: 'json', values: range(100) },
      },
    ],
    ...(outputs === undefined
      ? {}
      : { outputs: outputs.map((name) => ({ name, parameters: {} })) }),
  };
  const key = cacheKey(validateRequest(MODELS.simple, request, ctx));
  assert.ok(key !== undefined);
  return key;
}

void describe('cacheKey', () => {
  void it('is the same for the same request and differs when the answer could', () => {
    assert.ok(sameKey(simple(0), simple(0)));
    assert.ok(!sameKey(simple(0), simple(1)), 'input bytes');
    assert.ok(!sameKey(simple(0), simple(0, ['OUTPUT0'])), 'requested outputs');
    assert.ok(!sameKey(simple(0, ['OUTPUT0']), simple(0, ['OUTPUT1'])), 'which output');
  });

  void it("keeps only a 32-byte SHA-256 digest, the table key's hex", () => {
    const k = simple(0);
    assert.equal(k.bytes.byteLength, 32);
    assert.equal(k.hash, Buffer.from(k.bytes).toString('hex'));
    assert.notEqual(simple(0).bytes, k.bytes, 'a digest of its own per request');
  });
});

void describe('LocalCache', () => {
  const entryBytes = (k: CacheKey, v: number) => k.hash.length + v + ENTRY_OVERHEAD_BYTES;

  void it('never holds more than its budget, evicting the least recently used', () => {
    const one = entryBytes(simple(0), 1000);
    const cache = new LocalCache<number>(one * 3);
    for (let i = 0; i < 3; i++) assert.ok(cache.insert(simple(i), i, 1000));
    assert.equal(cache.lookup(simple(0)), 0); // 0 is now the most recent; 1 is next out
    assert.ok(cache.insert(simple(3), 3, 1000));
    assert.equal(cache.lookup(simple(1)), undefined);
    assert.equal(cache.lookup(simple(0)), 0);
    for (let i = 4; i < 50; i++) {
      cache.insert(simple(i), i, 1000);
      assert.ok(cache.usage().bytes <= one * 3);
    }
    assert.deepEqual(cache.usage(), { entries: 3, bytes: one * 3, budget: one * 3, evictions: 47 });
  });

  void it('refuses an entry larger than the whole budget and keeps what it has', () => {
    const cache = new LocalCache<number>(entryBytes(simple(0), 10));
    assert.ok(cache.insert(simple(0), 0, 10));
    assert.equal(cache.insert(simple(1), 1, 11), false);
    assert.equal(cache.lookup(simple(0)), 0);
    assert.equal(cache.usage().entries, 1);
  });

  void it('replaces an entry under the same key without counting it twice', () => {
    const cache = new LocalCache<number>(1 << 20);
    cache.insert(simple(0), 0, 10);
    cache.insert(simple(0), 1, 10);
    assert.equal(cache.lookup(simple(0)), 1);
    assert.equal(cache.usage().bytes, entryBytes(simple(0), 10));
  });
});
