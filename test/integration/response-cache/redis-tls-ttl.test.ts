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
import type { Redis } from 'ioredis';
import { RedisProcess, redisMissing } from '../../helpers/redis-server.js';
import type { TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  counts,
  delta,
  infer,
  redisCacheServer,
  redisClient,
  repeatIsSharedHit,
} from './redis-simple.js';

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
    client = await redisClient(redis, { tls: { ca: [readFileSync(file('ca.crt'))] } });
    const tls = [`redis,tls_enabled=true,cacert=${file('ca.crt')}`];
    a = await redisCacheServer(redis, tls);
    b = await redisCacheServer(redis, tls);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    client?.disconnect();
    await redis?.kill();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  void it('a repeat is a hit over TLS; a second server answers the entry without running', async () => {
    await repeatIsSharedHit(a, b, client);
  });
});

void describe('Redis response cache: ttl_ms', { skip }, () => {
  let redis: RedisProcess;
  let client: Redis;
  let ts: TestServer;
  const ttlMs = 1500;
  before(async () => {
    redis = await RedisProcess.start();
    client = await redisClient(redis);
    ts = await redisCacheServer(redis, [`redis,ttl_ms=${ttlMs}`]);
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
