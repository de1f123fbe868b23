// --cache-config as Triton spells it, and the refusals of what it does not take.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import { InferenceServerError } from '../../../src/errors.js';

const refused = (message: string) => (e: unknown) =>
  e instanceof InferenceServerError && e.code === 'BAD_REQUEST' && e.message === message;

void describe('parseCacheConfig', () => {
  void it('is no cache when no flag is given', () => {
    assert.equal(parseCacheConfig([]), undefined);
  });

  void it('reads local,size=N, split over flags or not, later values winning', () => {
    assert.deepEqual(parseCacheConfig(['local,size=1048576']), { kind: 'local', size: 1048576 });
    assert.deepEqual(parseCacheConfig(['local,size=1', 'local,size=2']), {
      kind: 'local',
      size: 2,
    });
    assert.ok(Object.isFrozen(parseCacheConfig(['local,size=1'])));
  });

  void it('takes the deprecated --response-cache-byte-size as local,size=N', () => {
    assert.deepEqual(parseCacheConfig([], '4096'), { kind: 'local', size: 4096 });
  });

  void it('refuses what it cannot serve, saying what arrived', () => {
    assert.throws(
      () => parseCacheConfig(['local']),
      refused("--cache-config: expected <cache>,<key>=<value>, got 'local'"),
    );
    assert.throws(
      () => parseCacheConfig(['local,size']),
      refused("--cache-config: expected <key>=<value> after 'local,', got 'size'"),
    );
    assert.throws(
      () => parseCacheConfig(['memcached,size=1']),
      refused("--cache-config: unknown cache 'memcached' (supported: local, redis)"),
    );
    assert.throws(
      () => parseCacheConfig(['local,size=1', 'redis,host=h']),
      refused('--cache-config: one cache per server, got local and redis'),
    );
    assert.throws(
      () => parseCacheConfig(['local,size=-1']),
      refused("--cache-config: local size: expected bytes as an integer, got '-1'"),
    );
    assert.throws(
      () => parseCacheConfig(['local,bytes=1']),
      refused("--cache-config: local cache has no setting 'bytes' (size)"),
    );
  });
});
