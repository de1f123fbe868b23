// The queue policy end to end on the deliberately slow model (one instance), after rows 10-12 of
// the reliability table: the queue cap rejects exactly the overflow at once, a queue timeout
// answers 503 at its deadline rather than when the running batch ends, and a client that goes away
// takes its queued request with it before it reaches a worker.
//
// Each scenario needs the instance busy while it plays out. How long slow_fp32 runs differs
// several-fold between machines, so the file times it first and sizes the busy request from that,
// and it waits for the busy request to be on the instance (the scheduler holds it, the queue is
// empty) rather than sleeping and assuming it is.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  type SlowModelTiming,
  type SlowReply,
} from '../helpers/slow-model-timing.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { metric, pendingRequests, waitFor } from '../helpers/wait-for.js';

const QUEUE_TIMEOUT_MS = 100;

/**
 * The least time the busy request keeps the instance busy by the timing taken at the start:
 * several times what the rest of any scenario here takes (a few HTTP round trips and polls, plus
 * the 100 ms queue timeout), so that neither a loaded machine nor one whose load eased after the
 * timing (so that the model runs faster than timed) turns a scenario into a race.
 */
const BUSY_MS = 1000;

/** `dynamic_batching` of each model. slow_cancel is also the one timed, before its test. */
const MODELS: Record<string, string> = {
  slow_cap: 'default_queue_policy { max_queue_size: 8 }',
  slow_timeout: `default_queue_policy { default_timeout_microseconds: ${QUEUE_TIMEOUT_MS * 1000} }`,
  slow_cancel: '',
};

interface Reply extends SlowReply {
  /** Set when the reply arrived: which replies came first. */
  readonly seq: number;
}

let replies = 0;

function infer(base: string, model: string, rows: number, signal?: AbortSignal): Promise<Reply> {
  return inferSlow(base, model, rows, signal !== undefined ? { signal } : {}).then((r) => ({
    ...r,
    seq: replies++,
  }));
}

async function stats(t: TestServer, model: string): Promise<any> {
  const s = (await (await fetch(`${t.base}/v2/models/${model}/stats`)).json()) as any;
  return s.model_stats[0];
}

void describe('queue policy on a busy model', () => {
  let repo: string;
  let t: TestServer;
  let timing: SlowModelTiming;
  let busyRows: number;
  before(async () => {
    repo = await tempRepository();
    for (const [name, db] of Object.entries(MODELS)) await copySlowModel(repo, name, db);
    t = await startTestServer({ modelRepositories: [repo] });
    timing = await measureSlowModel(t, 'slow_cancel');
    busyRows = timing.rowsFor(BUSY_MS);
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  /** Waits until `model`'s scheduler holds exactly one request and none is queued: it runs. */
  async function onTheInstance(model: string): Promise<void> {
    const v = t.server.registry.resolve(model, undefined);
    const state = await waitFor(
      () => ({ held: v.scheduler.inflightCount(), queued: v.reporter.pendingRequests }),
      (s) => s.held === 1 && s.queued === 0,
    );
    assert.deepEqual(state, { held: 1, queued: 0 }, 'the busy request reached the instance');
  }

  void it('max_queue_size 8: of 10 singles behind a running batch, exactly 2 get 503 at once', async (c) => {
    c.diagnostic(`${timing.summary}; busy request: ${busyRows} rows`);
    let busyDone = false;
    const busy = infer(t.base, 'slow_cap', busyRows).then((r) => {
      busyDone = true;
      return r;
    });
    await onTheInstance('slow_cap');
    const singles = Promise.all(Array.from({ length: 10 }, () => infer(t.base, 'slow_cap', 1)));
    assert.equal(
      await waitFor(
        () => pendingRequests(t.metricsBase, 'slow_cap'),
        (n) => n === 8,
      ),
      8,
    );
    assert.equal(busyDone, false, 'the queue filled while the batch ahead still ran');
    const [first, answers] = [await busy, await singles];
    assert.equal(first.status, 200);
    const rejected = answers.filter((r) => r.status === 503);
    assert.equal(rejected.length, 2, JSON.stringify(answers.map((r) => r.status)));
    for (const r of rejected) {
      assert.match(r.json.error, /Exceeds maximum queue size/);
      assert.ok(r.seq < first.seq, 'rejected while the running batch was still running');
    }
    assert.equal(answers.filter((r) => r.status === 200).length, 8);
    assert.equal(
      await metric(
        t.metricsBase,
        'nv_inference_request_failure',
        'model="slow_cap"',
        'reason="REJECTED"',
      ),
      2,
    );
    const s = await stats(t, 'slow_cap');
    assert.equal(s.inference_count, busyRows + 8);
    assert.equal(s.execution_count, 2); // the 8 queued singles ran as one batch
  });

  void it('a queue timeout answers 503 at its deadline, not when the running batch ends', async (c) => {
    c.diagnostic(`busy request: ${busyRows} rows, queue timeout ${QUEUE_TIMEOUT_MS} ms`);
    const busy = infer(t.base, 'slow_timeout', busyRows);
    await onTheInstance('slow_timeout');
    const late = await infer(t.base, 'slow_timeout', 1);
    assert.equal(late.status, 503);
    assert.match(late.json.error, /Request timeout expired/);
    assert.ok(
      late.ms >= QUEUE_TIMEOUT_MS,
      `answered after ${late.ms} ms, before its ${QUEUE_TIMEOUT_MS} ms deadline`,
    );
    const first = await busy;
    assert.equal(first.status, 200);
    assert.ok(late.seq < first.seq, 'the timeout was answered while the batch ahead still ran');
    assert.equal(
      await metric(
        t.metricsBase,
        'nv_inference_request_failure',
        'model="slow_timeout"',
        'reason="REJECTED"',
      ),
      1,
    );
    assert.equal((await stats(t, 'slow_timeout')).inference_count, busyRows);
  });

  void it('a client abort takes its queued request out at once; it never reaches the worker', async () => {
    const pending = () => pendingRequests(t.metricsBase, 'slow_cancel');
    const timed = await stats(t, 'slow_cancel'); // the runs that timed the model at the start
    let busyDone = false;
    const busy = infer(t.base, 'slow_cancel', busyRows).then((r) => {
      busyDone = true;
      return r;
    });
    await onTheInstance('slow_cancel');
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const queued = controllers.map((c) =>
      infer(t.base, 'slow_cancel', 1, c.signal).catch((e: unknown) => e),
    );
    assert.equal(await waitFor(pending, (n) => n === 5), 5);
    for (const i of [0, 2, 4]) controllers[i]!.abort();
    assert.equal(await waitFor(pending, (n) => n === 2), 2);
    assert.equal(busyDone, false, 'the gauge dropped while the batch ahead still ran');
    const outcomes = await Promise.all(queued);
    assert.equal((await busy).status, 200);
    for (const i of [0, 2, 4]) assert.equal((outcomes[i] as Error).name, 'AbortError');
    for (const i of [1, 3]) assert.equal((outcomes[i] as Reply).status, 200);
    const s = await stats(t, 'slow_cancel');
    // The busy rows and the 2 kept, which ran together once the busy batch ended; the 3 aborted
    // never ran.
    assert.equal(s.inference_count - timed.inference_count, busyRows + 2);
    assert.equal(s.execution_count - timed.execution_count, 2);
    assert.equal(await pending(), 0);
    assert.equal(
      await waitFor(
        () =>
          metric(
            t.metricsBase,
            'nv_inference_request_failure',
            'model="slow_cancel"',
            'reason="CANCELED"',
          ),
        (n) => n === 3,
      ),
      3,
    );
  });
});
