// The Redis response cache against Debian's redis-server started here (skipped with a reason where
// it is not installed), real infernode servers, real worker threads and real ONNX Runtime sessions
// (`simple` with response_cache { enable: true }): a repeat is a hit, two servers sharing one Redis
// answer each other's entries, a Redis down at start or killed and restarted under load fails no
// request (the failures are counted, hits resume once it is back), a value of another format
// version is skipped, and settings it cannot honour are refused at start.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import { parseArgs } from '../../../src/cli/server-options.js';
import { VALUE_FORMAT_VERSION } from '../../../src/cache/redis-value.js';
import { RedisProcess, redisMissing } from '../../helpers/redis-server.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  cachedRepository,
  counts,
  delta,
  errors,
  infer,
  redisCacheServer,
  redisClient,
  repeatIsSharedHit,
} from './redis-simple.js';

const skip = redisMissing();

void describe('Redis response cache', { skip }, () => {
  let redis: RedisProcess;
  let a: TestServer;
  let b: TestServer;
  let client: Redis;
  before(async () => {
    redis = await RedisProcess.start();
    client = await redisClient(redis);
    client.on('error', () => {}); // the kill test drops it too; its commands say so
    a = await redisCacheServer(redis);
    b = await redisCacheServer(redis);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    client?.disconnect();
    await redis?.kill();
  });

  void it('a repeat is a hit; a second server sharing the Redis answers it without running', async () => {
    await repeatIsSharedHit(a, b, client);
    const keys = await client.keys('*');
    assert.equal(keys.length, 1);
    assert.match(keys[0] ?? '', /^infernode:v1:[0-9a-f]{64}$/);
  });

  void it('skips a value of another format version, and counts one that does not parse', async () => {
    await client.flushdb();
    await infer(a, 2);
    const [key] = await waitFor(
      () => client.keys('infernode:v1:*'),
      (k) => k.length === 1,
    );
    assert.ok(key !== undefined);
    const value = await client.getBuffer(key);
    assert.ok(value !== null);
    const other = Buffer.from(value);
    other[4] = VALUE_FORMAT_VERSION + 1;
    await client.set(key, other);
    const c0 = await counts(a);
    await infer(a, 2);
    const c1 = await counts(a);
    assert.deepEqual(
      delta(c0, c1),
      { hits: 0, misses: 1, runs: 1 },
      'another version: a miss, run by the model',
    );
    assert.equal(await errors(a, 'lookup'), 0, 'another version is not an error');
    // The run replaced it with this version's value: the next repeat is a hit.
    await waitFor(
      async () => (await client.getBuffer(key))?.[4],
      (v) => v === VALUE_FORMAT_VERSION,
    );
    await infer(a, 2);
    assert.equal((await counts(a)).hits - c1.hits, 1);
    // This version's header with a truncated body: a miss, counted as a lookup error.
    await client.set(key, value.subarray(0, value.byteLength - 3));
    await infer(a, 2);
    assert.equal(await errors(a, 'lookup'), 1);
  });

  void it('a slow Redis: the lookup gives up at socket_timeout, the model answers, counted', async () => {
    const slow = await redisCacheServer(redis, ['redis,socket_timeout=100']);
    try {
      await infer(slow, 3); // connected
      const before = await errors(slow, 'lookup');
      const sleeping = client.call('DEBUG', 'SLEEP', '2');
      await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      await infer(slow, 4);
      const ms = performance.now() - t0;
      await sleeping;
      assert.ok(ms < 1500, `answered in ${Math.round(ms)} ms while Redis slept 2 s`);
      assert.equal(await errors(slow, 'lookup'), before + 1);
    } finally {
      await slow.close();
    }
  });

  void it('Redis killed and restarted under load: every request succeeds, errors counted, hits resume', async (c) => {
    let stop = false;
    let sent = 0;
    const failures: string[] = [];
    const loops = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          await infer(a, 100 + ((w * 7 + i) % 8));
          sent++;
        } catch (e) {
          failures.push(String(e));
        }
      }
    });
    try {
      await waitFor(
        () => sent,
        (n) => n >= 40,
      );
      const lookupErrors = await errors(a, 'lookup');
      await redis.kill();
      const down = await waitFor(
        () => errors(a, 'lookup'),
        (n) => n >= lookupErrors + 10,
      );
      assert.ok(down >= lookupErrors + 10, `lookup errors while down: ${down - lookupErrors}`);
      assert.ok((await errors(a, 'insert')) > 0, 'inserts failed while down');
      const sentWhileDown = sent;
      await redis.restart();
      const atRestart = (await counts(a)).hits;
      const hits = await waitFor(
        async () => (await counts(a)).hits,
        (h) => h >= atRestart + 20,
        30_000,
      );
      assert.ok(hits >= atRestart + 20, `hits after the restart: ${hits - atRestart}`);
      assert.ok(sent > sentWhileDown);
      c.diagnostic(
        `requests: ${sent}; lookup errors while down: ${down - lookupErrors}; ` +
          `insert errors: ${await errors(a, 'insert')}; hits after restart: ${hits - atRestart}`,
      );
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    assert.deepEqual(failures, [], 'no request failed');
    assert.ok(
      a.logs.some((l) => l.includes('response cache lookup failed')),
      'the failure was logged',
    );
    const warns = a.logs.filter((l) => l.includes('response cache lookup failed')).length;
    assert.ok(warns <= 2, `rate-limited: ${warns} lines`);
  });
});

void describe('Redis response cache: Redis down at start', { skip }, () => {
  void it('serves every request from the model, counts the failures, and hits once Redis is up', async () => {
    const redis = await RedisProcess.reserve();
    const ts = await redisCacheServer(redis);
    try {
      for (let i = 0; i < 5; i++) await infer(ts, 7);
      assert.equal((await counts(ts)).runs, 5);
      assert.equal(await errors(ts, 'lookup'), 5);
      assert.equal(await errors(ts, 'insert'), 5);
      await redis.restart();
      const hits = await waitFor(
        async () => {
          await infer(ts, 7);
          return (await counts(ts)).hits;
        },
        (h) => h >= 1,
        30_000,
      );
      assert.ok(hits >= 1, 'a hit once Redis is up');
    } finally {
      await ts.close();
      await redis.kill();
    }
  });
});

// Needs no Redis: the refusals come before any connection.
void describe('Redis response cache: settings refused at start', () => {
  void it('refuses keys ioredis cannot honour and an unreadable TLS file', async () => {
    assert.throws(
      () =>
        parseArgs([
          '--model-repository',
          '/tmp',
          '--cache-config',
          'redis,host=h,port=1,pool_size=8',
        ]),
      /--cache-config: redis pool_size=8 is not supported/,
    );
    await assert.rejects(
      startTestServer({
        modelRepositories: [await cachedRepository()],
        cacheConfig: parseCacheConfig([
          'redis,host=127.0.0.1,port=1,tls_enabled=true,cacert=/nonexistent/ca.pem',
        ]),
      }),
      /--cache-config: redis cacert: cannot read '\/nonexistent\/ca\.pem': ENOENT/,
    );
  });
});
