// The response cache against a real server, real worker threads and a real ONNX Runtime session
// (`simple` with response_cache { enable: true } and --cache-config local,size=N): a repeated
// request is answered from the cache over HTTP, gRPC and WebSocket with the same answer and no
// model execution, anything that changes the answer misses, a model enabling the cache on a server
// without one is refused, and the byte budget holds.

import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../../src/websocket/ws-protocol.js';
import { grpcClient } from '../../helpers/grpc-client.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';

async function cachedRepository(): Promise<string> {
  const repo = await tempRepository();
  const dir = await copyModel(repo, 'simple');
  await appendFile(path.join(dir, 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
  return repo;
}

const ints = (from: number, width = 16): number[] =>
  Array.from({ length: width }, (_, i) => from + i);

function request(a: number, b: number, extra: Record<string, unknown> = {}, rows = 1) {
  return {
    id: `req-${a}-${b}`,
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [rows, 16], data: ints(a, 16 * rows) },
      { name: 'INPUT1', datatype: 'INT32', shape: [rows, 16], data: ints(b, 16 * rows) },
    ],
    ...extra,
  };
}

interface Stats {
  readonly execution_count: number;
  readonly inference_count: number;
  readonly inference_stats: Record<string, { count: number; ns: number }>;
}

async function stats(ts: TestServer): Promise<Stats> {
  const res = await fetch(`${ts.base}/v2/models/simple/stats`);
  const body = (await res.json()) as { model_stats: Stats[] };
  return body.model_stats[0] as Stats;
}

async function metric(ts: TestServer, name: string): Promise<number> {
  const text = await (await fetch(`${ts.metricsBase}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' ') || l.startsWith(name + '{'));
  assert.ok(line !== undefined, `${name} in /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

void describe('response cache', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({
      modelRepositories: [await cachedRepository()],
      cacheConfig: parseCacheConfig(['local,size=1048576']),
    });
  });
  after(async () => {
    await ts.close();
  });

  void it('answers a repeated HTTP request from the cache: same answer, no execution, counted', async () => {
    const url = `${ts.base}/v2/models/simple/infer`;
    const first = await postJson(url, request(1, 100));
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const before = await stats(ts);
    assert.equal(before.inference_stats['cache_miss']?.count, 1);
    assert.equal(before.inference_stats['cache_hit']?.count, 0);

    const again = await postJson(url, { ...request(1, 100), id: 'another-id' });
    assert.equal(again.status, 200);
    assert.deepEqual({ ...again.json, id: 'req-1-100' }, first.json);
    assert.equal(again.json.id, 'another-id', "a hit answers with this request's id");
    const afterHit = await stats(ts);
    assert.equal(afterHit.inference_stats['cache_hit']?.count, 1);
    assert.ok((afterHit.inference_stats['cache_hit']?.ns ?? 0) > 0);
    assert.equal(afterHit.inference_stats['cache_miss']?.count, 1);
    assert.equal(afterHit.execution_count, before.execution_count, 'a hit runs nothing');
    assert.equal(afterHit.inference_count, before.inference_count);
    assert.equal(afterHit.inference_stats['success']?.count, 2, 'a hit is a success');
    assert.equal(await metric(ts, 'nv_cache_num_hits_per_model'), 1);
    assert.equal(await metric(ts, 'nv_cache_num_misses_per_model'), 1);
    assert.ok((await metric(ts, 'nv_cache_hit_duration_per_model')) > 0);
  });

  void it('misses on another input, another shape or other requested outputs', async () => {
    const url = `${ts.base}/v2/models/simple/infer`;
    const start = await stats(ts);
    const variants = [
      request(2, 100),
      request(1, 100, {}, 2),
      request(1, 100, { outputs: [{ name: 'OUTPUT1' }] }),
      request(1, 100, { outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }] }),
    ];
    for (const body of variants) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, await res.text());
    }
    const end = await stats(ts);
    assert.equal(
      (end.inference_stats['cache_miss']?.count ?? 0) -
        (start.inference_stats['cache_miss']?.count ?? 0),
      variants.length,
    );
    assert.equal(
      end.inference_stats['cache_hit']?.count,
      start.inference_stats['cache_hit']?.count,
    );
    assert.equal(end.execution_count - start.execution_count, variants.length);
    // The OUTPUT1-only answer holds OUTPUT1 alone: the requested outputs are part of the key.
    const only = await postJson(url, request(1, 100, { outputs: [{ name: 'OUTPUT1' }] }));
    assert.deepEqual(
      only.json.outputs.map((o: { name: string }) => o.name),
      ['OUTPUT1'],
    );
  });

  void it('answers a repeated gRPC request from the cache with the same bytes', async () => {
    const client = grpcClient(ts.grpcTarget);
    try {
      const int32s = (from: number) => Buffer.from(Int32Array.from(ints(from)).buffer);
      const call = () =>
        client.call('ModelInfer', {
          model_name: 'simple',
          id: 'g',
          inputs: ['INPUT0', 'INPUT1'].map((name) => ({ name, datatype: 'INT32', shape: [1, 16] })),
          raw_input_contents: [int32s(7), int32s(700)],
        });
      const start = await stats(ts);
      const first = await call();
      const second = await call();
      assert.deepEqual(second, first);
      const end = await stats(ts);
      assert.equal(
        (end.inference_stats['cache_hit']?.count ?? 0) -
          (start.inference_stats['cache_hit']?.count ?? 0),
        1,
      );
      assert.equal(end.execution_count - start.execution_count, 1);
      const grpcStats = await client.call('ModelStatistics', { name: 'simple' });
      const inference = grpcStats.model_stats[0].inference_stats;
      assert.equal(Number(inference.cache_hit.count), end.inference_stats['cache_hit']?.count);
      assert.equal(Number(inference.cache_miss.count), end.inference_stats['cache_miss']?.count);
    } finally {
      client.close();
    }
  });

  void it('answers a repeated WebSocket request from the cache with the same frame', async () => {
    const packr = new Packr({ useRecords: false, variableMapSize: true });
    const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
    const ws = new WebSocket(`${ts.base.replace(/^http/, 'ws')}${WS_PATH}`, [MSGPACK_PROTOCOL]);
    const waiters = new Map<number, (f: Record<string, unknown>) => void>();
    ws.on('message', (d: Buffer) => {
      const f = unpackr.unpack(d) as Record<string, unknown>;
      waiters.get(f['id'] as number)?.(f);
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const call = (id: number) =>
      new Promise<Record<string, unknown>>((resolve) => {
        waiters.set(id, resolve);
        ws.send(
          packr.pack({
            id,
            model: 'simple',
            inputs: ['INPUT0', 'INPUT1'].map((name, i) => ({
              name,
              datatype: 'INT32',
              shape: [1, 16],
              data: Buffer.from(Int32Array.from(ints(40 + i)).buffer),
            })),
          }),
        );
      });
    try {
      const start = await stats(ts);
      const first = await call(1);
      const second = await call(2);
      assert.ok(Array.isArray(first['outputs']), JSON.stringify(first));
      assert.deepEqual({ ...second, id: 1 }, first);
      const end = await stats(ts);
      assert.equal(
        (end.inference_stats['cache_hit']?.count ?? 0) -
          (start.inference_stats['cache_hit']?.count ?? 0),
        1,
      );
      assert.equal(end.execution_count - start.execution_count, 1);
    } finally {
      ws.close();
    }
  });
});

void describe('response cache: load refusal and byte budget', () => {
  void it('refuses a model enabling the cache on a server without one', async () => {
    const ts = await startTestServer({ modelRepositories: [await cachedRepository()] });
    try {
      const index = await postJson(`${ts.base}/v2/repository/index`, {});
      const entry = (index.json as { name: string; state: string; reason: string }[]).find(
        (e) => e.name === 'simple',
      );
      assert.equal(entry?.state, 'UNAVAILABLE');
      assert.match(
        entry?.reason ?? '',
        /model 'simple' enables response_cache but the server has no response cache; start it with --cache-config local,size=<bytes>/,
      );
    } finally {
      await ts.close();
    }
  });

  void it('holds no more than its byte budget over many distinct requests', async () => {
    const budget = 4096;
    const ts = await startTestServer({
      modelRepositories: [await cachedRepository()],
      cacheConfig: parseCacheConfig([`local,size=${budget}`]),
    });
    try {
      const url = `${ts.base}/v2/models/simple/infer`;
      for (let i = 0; i < 40; i++) {
        const res = await postJson(url, request(i * 1000, i));
        assert.equal(res.status, 200);
        assert.ok((await metric(ts, 'infernode_cache_bytes')) <= budget);
      }
      assert.equal(await metric(ts, 'infernode_cache_budget_bytes'), budget);
      assert.ok((await metric(ts, 'infernode_cache_evictions')) > 0, 'entries were evicted');
      const entries = await metric(ts, 'infernode_cache_entries');
      assert.ok(entries > 0 && entries < 40, `${entries} entries held`);
      // The most recent entry is still held: its repeat is a hit.
      const before = (await stats(ts)).inference_stats['cache_hit']?.count ?? 0;
      await postJson(url, request(39 * 1000, 39));
      assert.equal((await stats(ts)).inference_stats['cache_hit']?.count, before + 1);
    } finally {
      await ts.close();
    }
  });
});
