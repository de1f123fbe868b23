// What the Redis response cache suites share: `simple` with response_cache { enable: true } in a
// throwaway repository, a server caching in a given Redis, a client for that Redis, a request and
// its checked answer, the model's cache counts and cache error counter, and the first scenario
// every Redis set-up must pass (a repeat is a hit; a second server answers the first's entry).

import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import type { RedisProcess } from '../../helpers/redis-server.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { metric, waitFor } from '../../helpers/wait-for.js';

export async function cachedRepository(): Promise<string> {
  const repo = await tempRepository();
  const dir = await copyModel(repo, 'simple');
  await appendFile(path.join(dir, 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
  return repo;
}

/**
 * A server with `simple` cached in the Redis on `redis`'s port; `extra` are more `redis,...`
 * settings (TLS, ttl_ms, a shorter socket_timeout).
 */
export async function redisCacheServer(
  redis: RedisProcess,
  extra: readonly string[] = [],
): Promise<TestServer> {
  return startTestServer({
    modelRepositories: [await cachedRepository()],
    cacheConfig: parseCacheConfig([
      `redis,host=127.0.0.1,port=${redis.port}`,
      // Generous for a loaded CI machine: a timed-out lookup is a miss, which would flake a hit.
      'redis,socket_timeout=2000,connect_timeout=2000',
      ...extra,
    ]),
  });
}

/** A client connected to `redis` (over TLS when `options.tls` says so). */
export async function redisClient(redis: RedisProcess, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true, ...options });
  await client.connect();
  return client;
}

export const ints = (from: number): number[] => Array.from({ length: 16 }, (_, i) => from + i);

/** Sends `simple` request `a` and checks the answer is the model's (from the cache or not). */
export async function infer(ts: TestServer, a: number): Promise<void> {
  const res = await postJson(`${ts.base}/v2/models/simple/infer`, {
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: ints(a) },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: ints(1000) },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.json));
  const outputs = Object.fromEntries(
    (res.json.outputs as { name: string; data: number[] }[]).map((o) => [o.name, o.data]),
  );
  // OUTPUT0 = sum, OUTPUT1 = difference.
  assert.deepEqual(outputs, {
    OUTPUT0: ints(a).map((x, i) => x + 1000 + i),
    OUTPUT1: ints(a).map((x, i) => x - 1000 - i),
  });
}

export interface Counts {
  readonly hits: number;
  readonly misses: number;
  /** Model executions. */
  readonly runs: number;
}

/** `simple`'s cache hits, misses and executions so far. */
export async function counts(ts: TestServer): Promise<Counts> {
  const body = (await (await fetch(`${ts.base}/v2/models/simple/stats`)).json()) as {
    model_stats: { execution_count: number; inference_stats: Record<string, { count: number }> }[];
  };
  const s = body.model_stats[0];
  assert.ok(s !== undefined);
  return {
    hits: s.inference_stats['cache_hit']?.count ?? 0,
    misses: s.inference_stats['cache_miss']?.count ?? 0,
    runs: s.execution_count,
  };
}

export const delta = (a: Counts, b: Counts): Counts => ({
  hits: b.hits - a.hits,
  misses: b.misses - a.misses,
  runs: b.runs - a.runs,
});

export const errors = (ts: TestServer, op: 'lookup' | 'insert') =>
  metric(ts.metricsBase, 'infernode_cache_errors_total', `op="${op}"`);

/**
 * Two servers `a` and `b` sharing the Redis `client` speaks to, which holds no entry yet: a request
 * to `a` is a miss and lands in Redis, its repeat is a hit, and `b` answers it without running.
 * Neither server counts a cache error.
 */
export async function repeatIsSharedHit(
  a: TestServer,
  b: TestServer,
  client: Redis,
): Promise<void> {
  const a0 = await counts(a);
  await infer(a, 1);
  // The insert is sent off the response path: wait until it has landed.
  assert.equal(
    await waitFor(
      () => client.dbsize(),
      (n) => n === 1,
    ),
    1,
    'the entry reached Redis',
  );
  await infer(a, 1);
  assert.deepEqual(delta(a0, await counts(a)), { hits: 1, misses: 1, runs: 1 });
  const b0 = await counts(b);
  await infer(b, 1);
  assert.deepEqual(
    delta(b0, await counts(b)),
    { hits: 1, misses: 0, runs: 0 },
    "b answered a's entry",
  );
  assert.equal(await errors(a, 'lookup'), 0);
  assert.equal(await errors(a, 'insert'), 0);
  assert.equal(await errors(b, 'lookup'), 0);
}
