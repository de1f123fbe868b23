// `--cache-config redis,...`: Triton's Redis cache keys that ioredis can honour are taken, bounded
// timeouts by default; the rest is refused naming the key.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import {
  REDIS_COMMAND_TIMEOUT_MS,
  REDIS_CONNECT_TIMEOUT_MS,
} from '../../../src/cache/redis-config.js';

const refused = (message: string) => (e: unknown) => {
  assert.equal((e as Error).message, message);
  return true;
};

void describe('parseCacheConfig: redis', () => {
  void it('takes host and port, given in one flag or several, with bounded defaults', () => {
    const expected = {
      kind: 'redis',
      host: 'cache.internal',
      port: 6380,
      db: 0,
      connectTimeoutMs: REDIS_CONNECT_TIMEOUT_MS,
      commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
    };
    assert.deepEqual(parseCacheConfig(['redis,host=cache.internal,port=6380']), expected);
    assert.deepEqual(parseCacheConfig(['redis,host=cache.internal', 'redis,port=6380']), expected);
    assert.ok(Object.isFrozen(parseCacheConfig(['redis,host=h,port=1'])));
  });

  void it("takes Triton's other keys ioredis honours, and ttl_ms", () => {
    assert.deepEqual(
      parseCacheConfig([
        'redis,host=h,port=6379,user=app,password=s3cret,db=2',
        'redis,connect_timeout=500,socket_timeout=50,pool_size=1,ttl_ms=60000',
        'redis,tls_enabled=true,cert=/c.pem,key=/k.pem,cacert=/ca.pem,sni=redis.example',
      ]),
      {
        kind: 'redis',
        host: 'h',
        port: 6379,
        username: 'app',
        password: 's3cret',
        db: 2,
        connectTimeoutMs: 500,
        commandTimeoutMs: 50,
        ttlMs: 60000,
        tls: {
          certFile: '/c.pem',
          keyFile: '/k.pem',
          caFile: '/ca.pem',
          servername: 'redis.example',
        },
      },
    );
    assert.equal(parseCacheConfig(['redis,host=h,port=1,username=u'])?.kind, 'redis');
    assert.deepEqual(parseCacheConfig(['redis,host=h,port=1,tls_enabled=false']), {
      kind: 'redis',
      host: 'h',
      port: 1,
      db: 0,
      connectTimeoutMs: REDIS_CONNECT_TIMEOUT_MS,
      commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
    });
  });

  void it('refuses what it cannot honour, naming the key', () => {
    const cases: [string[], string][] = [
      [
        ['redis,host=h'],
        "--cache-config: redis cache needs host and port (Triton's minimum), e.g. --cache-config redis,host=localhost --cache-config redis,port=6379",
      ],
      [
        ['redis,port=1'],
        "--cache-config: redis cache needs host and port (Triton's minimum), e.g. --cache-config redis,host=localhost --cache-config redis,port=6379",
      ],
      [
        ['redis,host=h,port=70000'],
        "--cache-config: redis port: expected an integer from 1 to 65535, got '70000'",
      ],
      [
        ['redis,host=h,port=1,db=-1'],
        "--cache-config: redis db: expected an integer from 0 to 1000000, got '-1'",
      ],
      [
        ['redis,host=h,port=1,wait_timeout=100'],
        '--cache-config: redis wait_timeout is not supported: ioredis has no connection pool to wait on (one pipelined connection); bound a command with socket_timeout',
      ],
      [
        ['redis,host=h,port=1,tls_enabled=true,cacert_dir=/etc/ssl'],
        "--cache-config: redis cacert_dir is not supported: Node's TLS takes CA certificates, not a directory; give the bundle file as cacert=<file>",
      ],
      [
        ['redis,host=h,port=1,pool_size=4'],
        '--cache-config: redis pool_size=4 is not supported: ioredis pipelines every command on one connection (pool_size=1)',
      ],
      [
        ['redis,host=h,port=1,socket_timeout=0'],
        '--cache-config: redis socket_timeout=0 (wait forever) is not supported: a slow or absent Redis must never hold a request; give milliseconds > 0',
      ],
      [
        ['redis,host=h,port=1,connect_timeout=soon'],
        "--cache-config: redis connect_timeout: expected an integer from 1 to 3600000, got 'soon'",
      ],
      [
        ['redis,host=h,port=1,tls_enabled=yes'],
        "--cache-config: redis tls_enabled: expected true or false, got 'yes'",
      ],
      [
        ['redis,host=h,port=1,cacert=/ca.pem'],
        '--cache-config: redis cacert needs tls_enabled=true',
      ],
      [
        ['redis,host=h,port=1,tls_enabled=true,cert=/c.pem'],
        '--cache-config: redis cert and key go together (a client certificate and its key)',
      ],
      [
        ['redis,host=h,port=1,user=a,username=b'],
        '--cache-config: redis user and username are the same setting and were given different values',
      ],
      [
        ['redis,host=h,port=1,size=1024'],
        "--cache-config: redis cache has no setting 'size' (host, port, user, username, password, db, connect_timeout, socket_timeout, pool_size, tls_enabled, cert, key, cacert, sni, ttl_ms)",
      ],
      [
        ['redis,host=h,port=1,ttl_ms=0'],
        "--cache-config: redis ttl_ms: expected an integer from 1 to 9007199254740991, got '0'",
      ],
    ];
    for (const [values, message] of cases) {
      assert.throws(() => parseCacheConfig(values), refused(message), values.join(' '));
    }
  });
});
