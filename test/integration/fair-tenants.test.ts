// Fair dequeuing across tenants with real worker threads: a JavaScript model with one instance and
// batches of one, each run a few milliseconds, so the order requests finish in is the order the
// scheduler served them. Requests are built as the data plane builds them and given a tenant (the
// data plane's tenant header is another piece of work), then queued on the model's own scheduler.

import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InferenceServerError } from '../../src/errors.js';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import type { TenantTag } from '../../src/scheduler/tenant-tag.js';
import { brandValidated } from '../../src/scheduler/validated-request.js';
import { fp32, gaps } from '../unit/scheduler/fixtures.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Y = X after a short sleep: one request at a time on the one instance. */
const SOURCE = `
export async function execute(requests) {
  await new Promise((r) => setTimeout(r, 2));
  return requests.map((r) => ({ outputs: { Y: { shape: [1, 1], data: r.inputs.X.data } } }));
}
`;

const config = (name: string, dynamicBatching: string): string => `name: "${name}"
backend: "javascript"
max_batch_size: 1
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
dynamic_batching { ${dynamicBatching} }
`;

const MODELS: Record<string, string> = {
  fair_plain: '',
  fair_levels: 'priority_levels: 2 default_priority_level: 2',
  fair_timeout:
    'default_queue_policy { default_timeout_microseconds: 60000000 allow_timeout_override: true }',
};

interface Sent {
  readonly name: string;
  readonly tenant?: TenantTag;
  readonly priority?: number;
  readonly timeoutUs?: number;
}

/** Queues every request at once; resolves with names in the order they finished (and errors). */
async function run(
  scheduler: Scheduler,
  model: string,
  sent: readonly Sent[],
): Promise<{ order: string[]; errors: Map<string, string> }> {
  const order: string[] = [];
  const errors = new Map<string, string>();
  await Promise.all(
    sent.map((s, i) =>
      scheduler
        .enqueue(
          brandValidated({
            model,
            version: 1,
            batchSize: 1,
            inputs: [fp32('X', 1, [i])],
            outputs: [{ name: 'Y', binary: false }],
            priority: s.priority ?? 0,
            timeoutUs: s.timeoutUs ?? 0,
            signal: new AbortController().signal,
            arrivalNs: 0,
            ...(s.tenant !== undefined && { tenant: s.tenant }),
          }),
        )
        .then(
          (r) => {
            const y = new Float32Array(r.outputs[0]?.data.slice().buffer ?? new ArrayBuffer(0));
            assert.equal(y[0], i, `${s.name} got its own answer`);
            order.push(s.name);
          },
          (e: InferenceServerError) => {
            errors.set(s.name, e.code);
            order.push(s.name);
          },
        ),
    ),
  );
  return { order, errors };
}

const many = (prefix: string, n: number, o: Omit<Sent, 'name'> = {}): Sent[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, ...o }));

void describe('fair dequeuing across tenants, real workers', () => {
  let repo: string;
  let t: TestServer;
  const scheduler = (model: string): Scheduler =>
    t.server.registry.resolve(model, undefined).scheduler;
  before(async () => {
    repo = await tempRepository();
    for (const [name, db] of Object.entries(MODELS)) {
      await mkdir(path.join(repo, name, '1'), { recursive: true });
      await writeFile(path.join(repo, name, 'config.pbtxt'), config(name, db));
      await writeFile(path.join(repo, name, '1', 'model.js'), SOURCE);
    }
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('serves requests without a tenant first come, first served, exactly', async () => {
    const sent = many('r', 60);
    const { order, errors } = await run(scheduler('fair_plain'), 'fair_plain', sent);
    assert.equal(errors.size, 0);
    assert.deepEqual(
      order,
      sent.map((s) => s.name),
    );
  });

  void it("interleaves B's 10 requests with A's flood of 100 instead of serving them last", async () => {
    const A = { name: 'a', weight: 1 };
    const B = { name: 'b', weight: 1 };
    const { order, errors } = await run(scheduler('fair_plain'), 'fair_plain', [
      ...many('a', 100, { tenant: A }),
      ...many('b', 10, { tenant: B }),
    ]);
    assert.equal(errors.size, 0);
    const g = gaps(order, 'a', 'b');
    // a0 was already running when B came; after it, each B request waits for at most one of A's.
    assert.ok(g[0] !== undefined && g[0] <= 2 && g.slice(1).every((n) => n <= 1), g.join(','));
    assert.ok(order.indexOf('b9') < 25, `b9 finished ${order.indexOf('b9')}th`);
    // Each tenant's own requests in their order.
    assert.deepEqual(
      order.filter((n) => n.startsWith('a')),
      many('a', 100).map((s) => s.name),
    );
  });

  void it('gives tenants weighted 2:1 about 2:1 of the service', async () => {
    const { order } = await run(scheduler('fair_plain'), 'fair_plain', [
      ...many('a', 90, { tenant: { name: 'a', weight: 2 } }),
      ...many('b', 90, { tenant: { name: 'b', weight: 1 } }),
    ]);
    const first = order.slice(0, 60);
    const a = first.filter((n) => n.startsWith('a')).length;
    assert.ok(a >= 38 && a <= 42, `A had ${a} of the first 60 served`);
  });

  void it('keeps priorities strict: a higher level is served before any tenant below it', async () => {
    const A = { name: 'a', weight: 1 };
    const B = { name: 'b', weight: 1 };
    const { order, errors } = await run(scheduler('fair_levels'), 'fair_levels', [
      ...many('a', 40, { tenant: A, priority: 2 }),
      ...many('b', 10, { tenant: B, priority: 2 }),
      ...many('h', 10, { tenant: A, priority: 1 }),
    ]);
    assert.equal(errors.size, 0);
    // a0 ran before the rest came; then all of level 1, then level 2 shared between A and B.
    assert.deepEqual(order.slice(0, 11), ['a0', ...many('h', 10).map((s) => s.name)]);
    const g = gaps(order.slice(11), 'a', 'b');
    assert.ok(
      g.every((n) => n <= 1),
      g.join(','),
    );
  });

  void it("still times out A's queued requests at their deadline while B is served", async () => {
    const A = { name: 'a', weight: 1 };
    const B = { name: 'b', weight: 1 };
    const started = performance.now();
    const { order, errors } = await run(scheduler('fair_timeout'), 'fair_timeout', [
      ...many('a', 100, { tenant: A, timeoutUs: 30_000 }),
      ...many('b', 10, { tenant: B }),
    ]);
    const elapsed = performance.now() - started;
    const timedOut = [...errors].filter(([, code]) => code === 'QUEUE_TIMEOUT').map(([n]) => n);
    assert.equal(errors.size, timedOut.length, JSON.stringify([...errors]));
    assert.ok(timedOut.length > 0, `none of A's timed out in ${elapsed.toFixed(0)} ms`);
    assert.ok(
      timedOut.every((n) => n.startsWith('a')),
      timedOut.join(','),
    );
    // B's all served, and none waited for A's timed-out requests to be answered.
    assert.equal(order.filter((n) => n.startsWith('b') && !errors.has(n)).length, 10);
  });
});
