// Reply replay (cache/reply-replay.ts) against a real server, real worker threads and a real ONNX
// Runtime session: an HTTP request that repeats an earlier one byte for byte is answered with the
// earlier reply's exact bytes and counted as a cache hit, for JSON and binary bodies; the stored
// replies share the local cache's entries and budget; a request whose input comes from shared
// memory is never replayed (its bytes are not in the body); a tenant's quota still holds for
// replayed requests.

import assert from 'node:assert/strict';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { ShmFiles } from '../shared-memory/shm-fixture.js';

const ints = (from: number): number[] => Array.from({ length: 16 }, (_, i) => from + i);
const int32 = (xs: number[]) => Buffer.from(Int32Array.from(xs).buffer);

function jsonBody(a: number, b: number): string {
  return JSON.stringify({
    id: `r-${a}-${b}`,
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: ints(a) },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: ints(b) },
    ],
  });
}

/** The binary tensor extension: a JSON header, both inputs' bytes, binary outputs asked for. */
function binaryBody(a: number, b: number): { body: Buffer; headerLength: number } {
  const header = Buffer.from(
    JSON.stringify({
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: { binary_data_size: 64 } },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], parameters: { binary_data_size: 64 } },
      ],
      outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
    }),
  );
  return {
    body: Buffer.concat([header, int32(ints(a)), int32(ints(b))]),
    headerLength: header.byteLength,
  };
}

interface Reply {
  readonly status: number;
  readonly bytes: Buffer;
  readonly headers: Headers;
}

async function post(
  ts: TestServer,
  body: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(`${ts.base}/v2/models/simple/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

interface Counts {
  readonly hits: number;
  readonly misses: number;
  readonly executions: number;
}

async function counts(ts: TestServer): Promise<Counts> {
  const res = await fetch(`${ts.base}/v2/models/simple/stats`);
  const s = ((await res.json()) as { model_stats: any[] }).model_stats[0];
  return {
    hits: s.inference_stats.cache_hit.count,
    misses: s.inference_stats.cache_miss.count,
    executions: s.execution_count,
  };
}

async function cacheEntries(ts: TestServer): Promise<number> {
  const text = await (await fetch(`${ts.metricsBase}/metrics`)).text();
  const line = text.split('\n').find((l) => /^infernode_cache_entries[ {]/.test(l));
  assert.ok(line !== undefined, 'infernode_cache_entries in /metrics');
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function cachedRepository(): Promise<string> {
  const repo = await tempRepository();
  const dir = await copyModel(repo, 'simple');
  await appendFile(path.join(dir, 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
  return repo;
}

void describe('reply replay', () => {
  let ts: TestServer;
  const files = new ShmFiles();
  before(async () => {
    const repo = await cachedRepository();
    const quotaFile = path.join(repo, 'quotas.json');
    await writeFile(quotaFile, JSON.stringify({ tenants: { tight: { rps: 0.001, burst: 2 } } }));
    ts = await startTestServer({
      modelRepositories: [repo],
      cacheConfig: parseCacheConfig(['local,size=1048576']),
      // Replay runs where the cache is, on the main thread: a connection a front-end thread takes
      // (CI's second pass runs 2) is answered by the response cache instead, which
      // response-cache.test.ts covers.
      httpThreadCount: 1,
      allowClientShm: true,
      tenantHeader: 'x-tenant',
      quotaFile,
    });
  });
  after(async () => {
    files.removeAll();
    await ts.close();
  });

  void it('answers an exact repeat of a JSON request with the first reply, byte for byte', async () => {
    const body = jsonBody(1, 50);
    const start = await counts(ts);
    const first = await post(ts, body);
    assert.equal(first.status, 200, first.bytes.toString());
    // The first run stored two entries: the response (by validated request) and the reply.
    assert.equal(await cacheEntries(ts), 2);
    const again = await post(ts, body);
    assert.equal(again.status, 200);
    assert.deepEqual(again.bytes, first.bytes);
    assert.equal(again.headers.get('content-type'), 'application/json');
    const end = await counts(ts);
    assert.deepEqual(
      { hits: end.hits - start.hits, misses: end.misses - start.misses },
      { hits: 1, misses: 1 },
    );
    assert.equal(end.executions - start.executions, 1, 'the repeat ran nothing');
    const parsed = JSON.parse(again.bytes.toString()) as { id: string; outputs: any[] };
    assert.equal(parsed.id, 'r-1-50');
    assert.deepEqual(
      parsed.outputs.find((o) => o.name === 'OUTPUT0').data,
      ints(1).map((x, i) => x + (ints(50)[i] as number)),
    );
  });

  void it('replays a binary reply with its Inference-Header-Content-Length', async () => {
    const { body, headerLength } = binaryBody(3, 70);
    const headers = {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': String(headerLength),
    };
    const first = await post(ts, body, headers);
    assert.equal(first.status, 200, first.bytes.toString());
    const before = await counts(ts);
    const again = await post(ts, body, headers);
    assert.equal(again.status, 200);
    assert.deepEqual(again.bytes, first.bytes);
    assert.equal(
      again.headers.get('inference-header-content-length'),
      first.headers.get('inference-header-content-length'),
    );
    const json = Number(again.headers.get('inference-header-content-length'));
    const sums = new Int32Array(again.bytes.buffer.slice(again.bytes.byteOffset + json));
    assert.deepEqual(
      [...sums],
      ints(3).map((x, i) => x + (ints(70)[i] as number)),
    );
    const after = await counts(ts);
    assert.equal(after.hits - before.hits, 1);
    assert.equal(after.executions, before.executions);
  });

  void it('keys the bytes with their encoding: a gzip body of the same JSON is another request', async () => {
    const body = jsonBody(5, 9);
    const plain = await post(ts, body);
    assert.equal(plain.status, 200);
    const zipped = gzipSync(Buffer.from(body));
    const before = await counts(ts);
    const gz = await post(ts, zipped, { 'content-encoding': 'gzip' });
    assert.equal(gz.status, 200, gz.bytes.toString());
    assert.deepEqual(gz.bytes, plain.bytes, 'the same answer');
    // Not replayed (other bytes), but answered by the response cache: a hit, no run.
    const mid = await counts(ts);
    assert.equal(mid.hits - before.hits, 1);
    assert.equal(mid.executions, before.executions);
    // Now its own bytes are stored too.
    assert.deepEqual((await post(ts, zipped, { 'content-encoding': 'gzip' })).bytes, plain.bytes);
  });

  void it('never replays a request whose input is in shared memory: the region is read each time', async () => {
    const key = files.create('replay-in', int32(ints(10)));
    const reg = await postJson(`${ts.base}/v2/systemsharedmemory/region/replay_in/register`, {
      key,
      offset: 0,
      byte_size: 64,
    });
    assert.equal(reg.status, 200, JSON.stringify(reg.json));
    const body = JSON.stringify({
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'INT32',
          shape: [1, 16],
          parameters: { shared_memory_region: 'replay_in', shared_memory_byte_size: 64 },
        },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: ints(0) },
      ],
      outputs: [{ name: 'OUTPUT0' }],
    });
    const sum = (r: Reply) =>
      (JSON.parse(r.bytes.toString()) as { outputs: { data: number[] }[] }).outputs[0]?.data;
    const first = await post(ts, body);
    assert.equal(first.status, 200, first.bytes.toString());
    assert.deepEqual(
      sum(first),
      ints(10).map((x, i) => x + i),
    );
    // The same body, other bytes in the region: a new answer, not the stored one.
    files.write(key, int32(ints(1000)));
    const second = await post(ts, body);
    assert.equal(second.status, 200, second.bytes.toString());
    assert.deepEqual(
      sum(second),
      ints(1000).map((x, i) => x + i),
    );
  });

  void it("counts a replayed request against its tenant's quota", async () => {
    const body = jsonBody(7, 7);
    const tenant = { 'x-tenant': 'tight' };
    assert.equal((await post(ts, body, tenant)).status, 200);
    const replayed = await post(ts, body, tenant);
    assert.equal(replayed.status, 200);
    const refused = await post(ts, body, tenant);
    assert.equal(refused.status, 429, refused.bytes.toString());
    assert.match(refused.bytes.toString(), /"error"/);
    // Another tenant (no quota) sending the same bytes is replayed.
    assert.equal((await post(ts, body)).status, 200);
  });
});
