// The queue policy end to end on the deliberately slow model (one instance, hundreds of ms per
// run), after rows 10-12 of the reliability table: the queue cap rejects exactly the overflow at
// once, a queue timeout answers 503 at its deadline rather than when the running batch ends, and
// a client that goes away takes its queued request with it before it reaches a worker.

import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';

function slowConfig(name: string, dynamicBatching: string): string {
  return `name: "${name}"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 1024 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 1024 ] } ]
instance_group [ { count: 1, kind: KIND_CPU } ]
parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
dynamic_batching { ${dynamicBatching} }
`;
}

const MODELS = {
  slow_cap: 'default_queue_policy { max_queue_size: 8 }',
  slow_timeout: 'default_queue_policy { default_timeout_microseconds: 100000 }',
  slow_cancel: '',
};

interface Reply {
  readonly status: number;
  readonly body: any;
  /** Set when the reply arrived: which replies came first. */
  readonly seq: number;
  readonly ms: number;
}

let replies = 0;

async function infer(
  base: string,
  model: string,
  rows: number,
  signal?: AbortSignal,
): Promise<Reply> {
  const t0 = performance.now();
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'FP32',
          shape: [rows, 1024],
          data: Array(rows * 1024).fill(0.5),
        },
      ],
    }),
    ...(signal !== undefined ? { signal } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, seq: replies++, ms: performance.now() - t0 };
}

/** The sample of `name` whose labels include every one of `labels` (e.g. 'model="m"'). */
async function metric(t: TestServer, name: string, ...labels: string[]): Promise<number> {
  const text = await (await fetch(`${t.metricsBase}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && labels.every((x) => l.includes(x)));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

/** Polls until `read` returns `want` (bounded: 200 tries), returning the last value read. */
async function until(read: () => Promise<number>, want: number): Promise<number> {
  let v = await read();
  for (let i = 0; i < 200 && v !== want; i++) {
    await sleep(10);
    v = await read();
  }
  return v;
}

async function stats(t: TestServer, model: string): Promise<any> {
  const s = (await (await fetch(`${t.base}/v2/models/${model}/stats`)).json()) as any;
  return s.model_stats[0];
}

void describe('queue policy on a busy model', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    for (const [name, db] of Object.entries(MODELS)) {
      const dir = await copyModel(repo, 'slow_fp32', name);
      await writeFile(path.join(dir, 'config.pbtxt'), slowConfig(name, db));
    }
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('max_queue_size 8: of 10 singles behind a running batch of 8, exactly 2 get 503 at once', async () => {
    const busy = infer(t.base, 'slow_cap', 8);
    await sleep(50); // the batch of 8 is on the instance (dispatched on arrival)
    const singles = await Promise.all(
      Array.from({ length: 10 }, () => infer(t.base, 'slow_cap', 1)),
    );
    const first = await busy;
    assert.equal(first.status, 200);
    const rejected = singles.filter((r) => r.status === 503);
    assert.equal(rejected.length, 2, JSON.stringify(singles.map((r) => r.status)));
    for (const r of rejected) {
      assert.match(r.body.error, /Exceeds maximum queue size/);
      assert.ok(r.seq < first.seq, 'rejected while the running batch was still running');
    }
    assert.equal(singles.filter((r) => r.status === 200).length, 8);
    assert.equal(
      await metric(t, 'nv_inference_request_failure', 'model="slow_cap"', 'reason="REJECTED"'),
      2,
    );
    const s = await stats(t, 'slow_cap');
    assert.equal(s.inference_count, 16);
    assert.equal(s.execution_count, 2); // the 8 queued singles ran as one batch
  });

  void it('a queue timeout answers 503 at its deadline, not when the running batch ends', async () => {
    const busy = infer(t.base, 'slow_timeout', 8);
    await sleep(20);
    const late = await infer(t.base, 'slow_timeout', 1);
    assert.equal(late.status, 503);
    assert.match(late.body.error, /Request timeout expired/);
    assert.ok(late.ms >= 100, `answered after ${late.ms} ms, before its 100 ms deadline`);
    const first = await busy;
    assert.equal(first.status, 200);
    assert.ok(late.seq < first.seq, 'the timeout was answered while the batch ahead still ran');
    assert.equal(
      await metric(t, 'nv_inference_request_failure', 'model="slow_timeout"', 'reason="REJECTED"'),
      1,
    );
    assert.equal((await stats(t, 'slow_timeout')).inference_count, 8);
  });

  void it('a client abort takes its queued request out at once; it never reaches the worker', async () => {
    const pending = () => metric(t, 'nv_inference_pending_request_count', 'model="slow_cancel"');
    let busyDone = false;
    const busy = infer(t.base, 'slow_cancel', 8).then((r) => {
      busyDone = true;
      return r;
    });
    await sleep(20);
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const queued = controllers.map((c) =>
      infer(t.base, 'slow_cancel', 1, c.signal).catch((e: unknown) => e),
    );
    assert.equal(await until(pending, 5), 5);
    for (const i of [0, 2, 4]) controllers[i]!.abort();
    assert.equal(await until(pending, 2), 2);
    assert.equal(busyDone, false, 'the gauge dropped while the batch ahead still ran');
    const outcomes = await Promise.all(queued);
    assert.equal((await busy).status, 200);
    for (const i of [0, 2, 4]) assert.equal((outcomes[i] as Error).name, 'AbortError');
    for (const i of [1, 3]) assert.equal((outcomes[i] as Reply).status, 200);
    const s = await stats(t, 'slow_cancel');
    assert.equal(s.inference_count, 10); // 8 + the 2 kept: the 3 aborted never ran
    assert.equal(await pending(), 0);
    assert.equal(
      await until(
        () => metric(t, 'nv_inference_request_failure', 'model="slow_cancel"', 'reason="CANCELED"'),
        3,
      ),
      3,
    );
  });
});
