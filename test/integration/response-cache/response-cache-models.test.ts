// The response cache on the kinds of model beyond a plain one, against a real server with a cache
// (--cache-config local,size=N), real workers and real ONNX Runtime sessions: a decoupled model and
// a sequence model that enable the cache are refused at load (Triton's wording for the decoupled
// one), an ensemble that enables it is cached at the top level (a repeat is a hit in the
// ensemble's statistics and never reaches its composing model), and the cache's counts and times
// read the same over gRPC ModelStatistics as over HTTP.

import assert from 'node:assert/strict';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import { grpcClient } from '../../helpers/grpc-client.js';
import { copyModel, FIXTURE_REPOSITORY, tempRepository } from '../../helpers/temp-repository.js';
import { SIMPLE_TWICE_CONFIG } from '../../helpers/ensemble-configs.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';

const CACHE_ON = '\nresponse_cache { enable: true }\n';

// Two `simple` steps in a row (the chain of test/integration/ensemble.test.ts), cached on top.
const CHAIN = `${SIMPLE_TWICE_CONFIG}
${CACHE_ON}`;

// A decoupled JavaScript model (it would send one response per request) that enables the cache.
const DECOUPLED = `name: "js_decoupled_cached"
backend: "javascript"
max_batch_size: 4
model_transaction_policy { decoupled: true }
input [ { name: "X" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_INT32 dims: [ 1 ] } ]
${CACHE_ON}`;
const DECOUPLED_SOURCE = `
export function execute(requests) {
  for (const r of requests) { r.sender.send({ outputs: { Y: { shape: [1, 1], data: new Int32Array([1]) } } }); r.sender.close(); }
}
`;

async function repository(): Promise<string> {
  const repo = await tempRepository();
  await copyModel(repo, 'simple');
  await mkdir(path.join(repo, 'simple_twice', '1'), { recursive: true });
  await writeFile(path.join(repo, 'simple_twice', 'config.pbtxt'), CHAIN);
  await mkdir(path.join(repo, 'js_decoupled_cached', '1'), { recursive: true });
  await writeFile(path.join(repo, 'js_decoupled_cached', 'config.pbtxt'), DECOUPLED);
  await writeFile(path.join(repo, 'js_decoupled_cached', '1', 'model.mjs'), DECOUPLED_SOURCE);
  const sequence = path.join(repo, 'sequence_accumulator');
  await cp(path.join(FIXTURE_REPOSITORY, 'sequence_accumulator'), sequence, { recursive: true });
  const config = await readFile(path.join(sequence, 'config.pbtxt'), 'utf8');
  await writeFile(path.join(sequence, 'config.pbtxt'), config + CACHE_ON);
  return repo;
}

interface Duration {
  readonly count: number;
  readonly ns: number;
}
interface Stats {
  readonly execution_count: number;
  readonly inference_count: number;
  readonly inference_stats: Record<string, Duration>;
}

async function stats(ts: TestServer, model: string): Promise<Stats> {
  const res = await fetch(`${ts.base}/v2/models/${model}/stats`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { model_stats: Stats[] }).model_stats[0] as Stats;
}

const stat = (s: Stats, name: string): Duration => s.inference_stats[name] ?? { count: 0, ns: 0 };

const ints = (from: number): number[] => Array.from({ length: 16 }, (_, i) => from + i);

void describe('response cache: decoupled, sequence and ensemble models', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({
      modelRepositories: [await repository()],
      cacheConfig: parseCacheConfig(['local,size=1048576']),
    });
  });
  after(async () => {
    await ts.close();
  });

  async function reason(model: string): Promise<{ state: string; reason: string }> {
    const index = await postJson(`${ts.base}/v2/repository/index`, {});
    const entry = (index.json as { name: string; state: string; reason: string }[]).find(
      (e) => e.name === model,
    );
    assert.ok(entry !== undefined, `${model} in the index: ${JSON.stringify(index.json)}`);
    return entry;
  }

  void it("refuses a decoupled model that enables the cache, in Triton's words", async () => {
    const entry = await reason('js_decoupled_cached');
    assert.equal(entry.state, 'UNAVAILABLE');
    assert.match(
      entry.reason,
      /Response Cache does not currently support model js_decoupled_cached with 'decoupled' transaction policy\. Please disable the response cache\./,
    );
  });

  void it('refuses a sequence model that enables the cache', async () => {
    const entry = await reason('sequence_accumulator');
    assert.equal(entry.state, 'UNAVAILABLE');
    assert.match(
      entry.reason,
      /Response Cache does not currently support model sequence_accumulator with sequence batching: .* Please disable the response cache\./,
    );
  });

  void it("caches an ensemble at the top level: a repeat is the ensemble's hit and runs no step", async () => {
    const url = `${ts.base}/v2/models/simple_twice/infer`;
    const body = {
      inputs: [
        { name: 'A', datatype: 'INT32', shape: [1, 16], data: ints(5) },
        { name: 'B', datatype: 'INT32', shape: [1, 16], data: ints(50) },
      ],
    };
    const first = await postJson(url, body);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    // simple computes (a+b, a-b); twice: (2a, 2b).
    const twoA = (first.json.outputs as { name: string; data: number[] }[]).find(
      (o) => o.name === 'TWO_A',
    );
    assert.deepEqual(
      twoA?.data,
      ints(5).map((a) => 2 * a),
    );
    const ensembleBefore = await stats(ts, 'simple_twice');
    const stepBefore = await stats(ts, 'simple');
    assert.equal(stat(ensembleBefore, 'cache_miss').count, 1);
    assert.equal(stat(ensembleBefore, 'cache_hit').count, 0);
    assert.equal(stat(stepBefore, 'success').count, 2, 'the miss ran both steps');
    assert.equal(stat(stepBefore, 'cache_hit').count + stat(stepBefore, 'cache_miss').count, 0);

    const again = await postJson(url, body);
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, first.json);
    const ensembleAfter = await stats(ts, 'simple_twice');
    const stepAfter = await stats(ts, 'simple');
    assert.equal(stat(ensembleAfter, 'cache_hit').count, 1);
    assert.ok(stat(ensembleAfter, 'cache_hit').ns > 0);
    assert.equal(stat(ensembleAfter, 'cache_miss').count, 1);
    assert.equal(stat(ensembleAfter, 'success').count, 2, 'the hit is a success of the ensemble');
    assert.deepEqual(stepAfter, stepBefore, "the composing model's statistics are unchanged");
  });

  void it('reports cache_hit and cache_miss counts and times over gRPC as over HTTP', async () => {
    const client = grpcClient(ts.grpcTarget);
    try {
      const int32s = (from: number) => Buffer.from(Int32Array.from(ints(from)).buffer);
      const call = () =>
        client.call('ModelInfer', {
          model_name: 'simple_twice',
          inputs: ['A', 'B'].map((name) => ({ name, datatype: 'INT32', shape: [1, 16] })),
          raw_input_contents: [int32s(9), int32s(90)],
        });
      await call();
      await call();
      await call();
      const http = await stats(ts, 'simple_twice');
      const reply = await client.call('ModelStatistics', { name: 'simple_twice' });
      const grpc = reply.model_stats[0].inference_stats;
      for (const name of ['cache_hit', 'cache_miss']) {
        assert.ok(stat(http, name).count > 0 && stat(http, name).ns > 0, name);
        assert.equal(Number(grpc[name].count), stat(http, name).count, `${name}.count`);
        assert.equal(Number(grpc[name].ns), stat(http, name).ns, `${name}.ns`);
      }
      assert.equal(
        stat(http, 'cache_hit').count,
        3,
        'the ensemble test left one hit, this adds two',
      );
    } finally {
      client.close();
    }
  });
});
