// The Redis response cache over TLS and with ttl_ms, against Debian's redis-server started here
// (skipped with a reason where it is not installed, where it was built without TLS, or where
// openssl is missing), real infernode servers, worker threads and ONNX Runtime sessions (`simple`
// with response_cache { enable: true }). TLS: a throwaway CA and server certificate made with
// openssl, Redis on a TLS-only port, and the cache trusting that CA: a repeat is a hit and a second
// server answers the first's entry. ttl_ms: the entry carries Redis's expiry, and once it has
// expired the same request runs the model again.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import { RedisProcess, redisMissing } from '../../helpers/redis-server.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { metric, waitFor } from '../../helpers/wait-for.js';

const skip = redisMissing();

/** Why TLS cannot be tried here (redis-server without TLS, or no openssl), or undefined. */
function tlsMissing(): string | undefined {
  if (skip !== undefined) return skip;
  if (spawnSync('sh', ['-c', 'command -v openssl']).status !== 0) return 'openssl is not installed';
  // A TLS build refuses a TLS port without a certificate; one without TLS does not know the key.
  const probe = spawnSync('redis-server', ['--port', '0', '--tls-port', '1'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  const out = `${probe.stdout}${probe.stderr}`;
  return out.includes('tls-cert-file')
    ? undefined
    : `this redis-server was built without TLS (--tls-port: ${out.trim().split('\n').pop()})`;
}

const tlsSkip = tlsMissing();

function openssl(dir: string, args: string[]): void {
  const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, `openssl ${args.join(' ')}: ${run.stderr}`);
}

/** A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost. */
function makeCertificates(dir: string): void {
  openssl(dir, [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
    ...['-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=infernode test CA'],
  ]);
  openssl(dir, [
    ...['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key'],
    ...['-out', 'server.csr', '-subj', '/CN=localhost'],
  ]);
  openssl(dir, [
    ...['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key'],
    ...['-CAcreateserial', '-out', 'server.crt', '-days', '1'],
    ...['-extfile', 'san.cnf'],
  ]);
}

async function cachedRepository(): Promise<string> {
  const repo = await tempRepository();
  const dir = await copyModel(repo, 'simple');
  await appendFile(path.join(dir, 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
  return repo;
}

const ints = (from: number): number[] => Array.from({ length: 16 }, (_, i) => from + i);

/** Sends `simple` a request and checks its answer (OUTPUT0 = sum), from the cache or not. */
async function infer(ts: TestServer, a: number): Promise<void> {
  const res = await postJson(`${ts.base}/v2/models/simple/infer`, {
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: ints(a) },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: ints(1000) },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.json));
  const out = (res.json.outputs as { name: string; data: number[] }[]).find(
    (o) => o.name === 'OUTPUT0',
  );
  assert.deepEqual(
    out?.data,
    ints(a).map((x, i) => x + 1000 + i),
  );
}

interface Counts {
  readonly hits: number;
  readonly misses: number;
  readonly runs: number;
}

async function counts(ts: TestServer): Promise<Counts> {
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

const delta = (a: Counts, b: Counts): Counts => ({
  hits: b.hits - a.hits,
  misses: b.misses - a.misses,
  runs: b.runs - a.runs,
});

const errors = (ts: TestServer, op: 'lookup' | 'insert') =>
  metric(ts.metricsBase, 'infernode_cache_errors_total', `op="${op}"`);

void describe('Redis response cache over TLS', { skip: tlsSkip }, () => {
  let dir: string;
  let redis: RedisProcess;
  let client: Redis;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'infernode-redis-tls-'));
    await appendFile(path.join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    makeCertificates(dir);
    const file = (name: string): string => path.join(dir, name);
    redis = await RedisProcess.startTls(file('server.crt'), file('server.key'), file('ca.crt'));
    client = new Redis({
      host: '127.0.0.1',
      port: redis.port,
      lazyConnect: true,
      tls: { ca: [readFileSync(file('ca.crt'))] },
    });
    await client.connect();
    const server = async (): Promise<TestServer> =>
      startTestServer({
        modelRepositories: [await cachedRepository()],
        cacheConfig: parseCacheConfig([
          `redis,host=127.0.0.1,port=${redis.port},tls_enabled=true,cacert=${file('ca.crt')}`,
          'redis,socket_timeout=2000,connect_timeout=2000',
        ]),
      });
    a = await server();
    b = await server();
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    client?.disconnect();
    await redis?.kill();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  void it('a repeat is a hit over TLS; a second server answers the entry without running', async () => {
    const a0 = await counts(a);
    await infer(a, 1);
    assert.equal(
      await waitFor(
        () => client.dbsize(),
        (n) => n === 1,
      ),
      1,
      'the entry reached Redis over TLS',
    );
    await infer(a, 1);
    assert.deepEqual(delta(a0, await counts(a)), { hits: 1, misses: 1, runs: 1 });
    const b0 = await counts(b);
    await infer(b, 1);
    assert.deepEqual(delta(b0, await counts(b)), { hits: 1, misses: 0, runs: 0 });
    assert.equal(await errors(a, 'lookup'), 0);
    assert.equal(await errors(a, 'insert'), 0);
    assert.equal(await errors(b, 'lookup'), 0);
  });
});

void describe('Redis response cache: ttl_ms', { skip }, () => {
  let redis: RedisProcess;
  let client: Redis;
  let ts: TestServer;
  const ttlMs = 1500;
  before(async () => {
    redis = await RedisProcess.start();
    client = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true });
    await client.connect();
    ts = await startTestServer({
      modelRepositories: [await cachedRepository()],
      cacheConfig: parseCacheConfig([
        `redis,host=127.0.0.1,port=${redis.port},ttl_ms=${ttlMs}`,
        'redis,socket_timeout=2000,connect_timeout=2000',
      ]),
    });
  });
  after(async () => {
    await ts?.close();
    client?.disconnect();
    await redis?.kill();
  });

  void it('an entry carries the expiry, and once expired the request runs the model again', async () => {
    const c0 = await counts(ts);
    await infer(ts, 7);
    const keys = await waitFor(
      () => client.keys('*'),
      (k) => k.length === 1,
    );
    assert.equal(keys.length, 1);
    const pttl = await client.pttl(keys[0] ?? '');
    assert.ok(pttl > 0 && pttl <= ttlMs, `PTTL ${pttl} ms, set with ttl_ms=${ttlMs}`);
    // Expired in Redis (a lookup of an expired key finds nothing, whether or not it was reaped).
    await new Promise((r) => setTimeout(r, ttlMs + 200));
    assert.equal(await client.exists(keys[0] ?? ''), 0, 'expired');
    await infer(ts, 7);
    assert.deepEqual(delta(c0, await counts(ts)), { hits: 0, misses: 2, runs: 2 });
    // Stored again, with a fresh expiry: an immediate repeat is a hit.
    await waitFor(
      () => client.dbsize(),
      (n) => n === 1,
    );
    await infer(ts, 7);
    assert.deepEqual(delta(c0, await counts(ts)), { hits: 1, misses: 2, runs: 2 });
  });
});
