// A request whose run fails (the model errors, it times out in the queue, the client cancels it) is
// neither stored in the response cache nor counted as a cache miss, as in Triton: only a successful
// run fills an entry. Checked on a real server with real sessions: the same request sent again runs
// the model again instead of being answered from the cache.

import assert from 'node:assert/strict';
import { appendFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseCacheConfig } from '../../../src/cache/cache-config.js';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  type SlowModelTiming,
} from '../../helpers/slow-model-timing.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { metric, pendingRequests, waitFor } from '../../helpers/wait-for.js';

const QUEUE_TIMEOUT_MS = 100;
/** How long the busy request holds the one instance (see batching-queue.test.ts). */
const BUSY_MS = 1000;
const CACHE = '\nresponse_cache { enable: true }\n';

interface Stats {
  readonly execution_count: number;
  readonly inference_stats: Record<string, { count: number }>;
}

async function stats(t: TestServer, model: string): Promise<Stats> {
  const s = (await (await fetch(`${t.base}/v2/models/${model}/stats`)).json()) as {
    model_stats: Stats[];
  };
  return s.model_stats[0] as Stats;
}

const count = (s: Stats, field: string): number => s.inference_stats[field]?.count ?? 0;

void describe('response cache: a failed run stores nothing and is not a miss', () => {
  let repo: string;
  let t: TestServer;
  let busyRows: number;
  let timing: SlowModelTiming;
  before(async () => {
    repo = await tempRepository();
    await appendFile(path.join(await copyModel(repo, 'failing_run'), 'config.pbtxt'), CACHE);
    const policy = `default_queue_policy { default_timeout_microseconds: ${QUEUE_TIMEOUT_MS * 1000} }`;
    await appendFile(
      path.join(await copySlowModel(repo, 'slow_cached', policy), 'config.pbtxt'),
      CACHE,
    );
    t = await startTestServer({
      modelRepositories: [repo],
      cacheConfig: parseCacheConfig(['local,size=268435456']),
    });
    timing = await measureSlowModel(t, 'slow_cached');
    busyRows = timing.rowsFor(BUSY_MS);
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  /** Waits until the model's one instance runs one request and none is queued. */
  async function onTheInstance(model: string): Promise<void> {
    const v = t.server.registry.resolve(model, undefined);
    const state = await waitFor(
      () => ({ held: v.scheduler.inflightCount(), queued: v.reporter.pendingRequests }),
      (s) => s.held === 1 && s.queued === 0,
    );
    assert.deepEqual(state, { held: 1, queued: 0 }, 'the busy request reached the instance');
  }

  void it('a model error: the repeat runs the model again, no miss, no entry', async () => {
    const body = {
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }],
    };
    const url = `${t.base}/v2/models/failing_run/infer`;
    for (let i = 0; i < 2; i++) {
      const r = await postJson(url, body);
      assert.equal(r.status, 500, JSON.stringify(r.json));
      assert.match(r.json.error as string, /running Reshape node/, 'the model ran again');
    }
    const s = await stats(t, 'failing_run');
    assert.equal(count(s, 'fail'), 2);
    assert.equal(count(s, 'cache_miss'), 0);
    assert.equal(count(s, 'cache_hit'), 0);
    assert.equal(
      await metric(t.metricsBase, 'nv_cache_num_misses_per_model', 'model="failing_run"'),
      0,
    );
  });

  void it('a queue timeout and a cancelled request: neither stored nor counted as a miss', async (c) => {
    c.diagnostic(`${timing.summary}; busy request: ${busyRows} rows`);
    const start = await stats(t, 'slow_cached');
    // A queue timeout behind a busy request.
    const busy = inferSlow(t.base, 'slow_cached', busyRows, { seed: 1 });
    await onTheInstance('slow_cached');
    const late = await inferSlow(t.base, 'slow_cached', 1, { seed: 2 });
    assert.equal(late.status, 503, JSON.stringify(late.json));
    assert.match(late.json.error as string, /Request timeout expired/);
    assert.equal((await busy).status, 200);
    // A client abort of a queued request behind another busy one.
    const busy2 = inferSlow(t.base, 'slow_cached', busyRows, { seed: 3 });
    await onTheInstance('slow_cached');
    const abort = new AbortController();
    const cancelled = inferSlow(t.base, 'slow_cached', 1, { seed: 4, signal: abort.signal }).catch(
      (e: unknown) => e,
    );
    assert.equal(
      await waitFor(
        () => pendingRequests(t.metricsBase, 'slow_cached'),
        (n) => n === 1,
      ),
      1,
    );
    abort.abort();
    assert.equal(((await cancelled) as Error).name, 'AbortError');
    assert.equal((await busy2).status, 200);
    const canceledCount = () =>
      metric(
        t.metricsBase,
        'nv_inference_request_failure',
        'model="slow_cached"',
        'reason="CANCELED"',
      );
    assert.equal(await waitFor(canceledCount, (n) => n === 1), 1);

    const mid = await stats(t, 'slow_cached');
    assert.equal(count(mid, 'cache_miss') - count(start, 'cache_miss'), 2, 'the two busy runs');
    assert.equal(count(mid, 'cache_hit') - count(start, 'cache_hit'), 0);
    // Both failed requests, sent again, run the model: nothing was stored for them.
    for (const seed of [2, 4]) {
      const again = await inferSlow(t.base, 'slow_cached', 1, { seed });
      assert.equal(again.status, 200, JSON.stringify(again.json));
    }
    const end = await stats(t, 'slow_cached');
    assert.equal(end.execution_count - mid.execution_count, 2, 'both ran');
    assert.equal(count(end, 'cache_hit') - count(start, 'cache_hit'), 0);
    assert.equal(count(end, 'cache_miss') - count(mid, 'cache_miss'), 2);
    // And a successful request sent again is a hit: the cache works on this model.
    assert.equal((await inferSlow(t.base, 'slow_cached', 1, { seed: 4 })).status, 200);
    assert.equal(count(await stats(t, 'slow_cached'), 'cache_hit') - count(start, 'cache_hit'), 1);
  });
});
