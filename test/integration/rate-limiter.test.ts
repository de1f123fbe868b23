// Triton's rate limiter on a real server with real worker threads: small JavaScript models that
// sleep and stamp when their execute() began and ended (performance.timeOrigin + now(), a clock
// every worker shares), so the runs' intervals show what ran at once. Checked: two models sharing
// a global resource of count 1 never overlap, while with --rate-limit=off they do; a per-device
// resource bounds the instances on one device to its count; priorities decide who runs under
// contention; BLS calls and ensemble steps into a limited model pass its gate; an unload with runs waiting for resources drains them and leaves nothing held; a
// demand the explicit resources cannot meet fails the model's load with Triton's message.

import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ServerOptions } from '../../src/cli/server-options.js';
import { parseRateLimitSettings } from '../../src/scheduler/rate-limit/rate-limit-settings.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { tempRepository } from '../helpers/temp-repository.js';

/** execute() sleeps SLEEP_MS (a parameter) and answers when it started and ended. */
const SLEEP_SOURCE = `
let name, ms;
export function initialize(args) {
  name = args.model_instance_name;
  ms = Number(args.model_config.parameters.SLEEP_MS.string_value);
}
const now = () => performance.timeOrigin + performance.now();
export async function execute(requests) {
  const start = now();
  await new Promise((r) => setTimeout(r, ms));
  const end = now();
  return requests.map(() => ({
    outputs: {
      START: { shape: [1], data: [start] },
      END: { shape: [1], data: [end] },
      INSTANCE: { shape: [1], data: [name] },
    },
  }));
}
`;

/** Calls shared_a over BLS and answers with shared_a's stamps. */
const BLS_SOURCE = `
export async function execute(requests, context) {
  return Promise.all(requests.map(async () => {
    const got = await context.infer('shared_a', { X: { datatype: 'FP32', shape: [1], data: [0] } });
    if (got instanceof Error) return got;
    return { outputs: {
      START: { shape: [1], data: [got.outputs.START.data[0]] },
      END: { shape: [1], data: [got.outputs.END.data[0]] },
      INSTANCE: { shape: [1], data: [got.outputs.INSTANCE.strings?.[0] ?? String(got.outputs.INSTANCE.data[0])] },
    } };
  }));
}
`;

async function sleepModel(
  repo: string,
  name: string,
  opts: { ms: number; count?: number; rateLimiter?: string },
): Promise<void> {
  await mkdir(path.join(repo, name, '1'), { recursive: true });
  const limiter = opts.rateLimiter === undefined ? '' : ` rate_limiter { ${opts.rateLimiter} }`;
  await writeFile(
    path.join(repo, name, 'config.pbtxt'),
    `name: "${name}"
backend: "javascript"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [
  { name: "START" data_type: TYPE_FP64 dims: [ 1 ] },
  { name: "END" data_type: TYPE_FP64 dims: [ 1 ] },
  { name: "INSTANCE" data_type: TYPE_STRING dims: [ 1 ] }
]
instance_group [ { count: ${opts.count ?? 1} kind: KIND_CPU${limiter} } ]
parameters { key: "SLEEP_MS" value: { string_value: "${opts.ms}" } }
`,
  );
  await writeFile(path.join(repo, name, '1', 'model.js'), SLEEP_SOURCE);
}

interface Run {
  readonly model: string;
  readonly start: number;
  readonly end: number;
  readonly instance: string;
}

/** `n` concurrent requests to each model in `models`, all sent at once; their runs. */
async function runAll(t: TestServer, models: readonly string[], n: number): Promise<Run[]> {
  const sent = models.flatMap((model) =>
    Array.from({ length: n }, async (): Promise<Run> => {
      const res = await postJson(`${t.base}/v2/models/${model}/infer`, {
        inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [0] }],
      });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      const out = (name: string): unknown =>
        (res.json.outputs as Array<{ name: string; data: unknown[] }>).find((o) => o.name === name)
          ?.data[0];
      return {
        model,
        start: out('START') as number,
        end: out('END') as number,
        instance: out('INSTANCE') as string,
      };
    }),
  );
  return Promise.all(sent);
}

/** Pairs of runs that were executing at the same time. */
function overlaps(runs: readonly Run[]): Array<[Run, Run]> {
  const found: Array<[Run, Run]> = [];
  for (const [i, a] of runs.entries()) {
    for (const b of runs.slice(i + 1)) if (a.start < b.end && b.start < a.end) found.push([a, b]);
  }
  return found;
}

const GLOBAL_R = 'resources [ { name: "R" global: true count: 1 } ]';

async function serve(repo: string, extra: Partial<ServerOptions>): Promise<TestServer> {
  return startTestServer({ modelRepositories: [repo], httpThreadCount: 1, ...extra });
}

const LIMITED = { rateLimit: parseRateLimitSettings('execution_count', []) };

void describe('rate limiter: a global resource shared by two models', () => {
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await sleepModel(repo, 'shared_a', { ms: 60, rateLimiter: GLOBAL_R });
    await sleepModel(repo, 'shared_b', { ms: 60, rateLimiter: GLOBAL_R });
    // Asks for no resource itself; its BLS calls to shared_a pass shared_a's gate.
    await mkdir(path.join(repo, 'bls_via', '1'), { recursive: true });
    await writeFile(
      path.join(repo, 'bls_via', 'config.pbtxt'),
      (await readFile(path.join(repo, 'shared_a', 'config.pbtxt'), 'utf8'))
        .replace('name: "shared_a"', 'name: "bls_via"')
        .replace(/ rate_limiter \{[^\n]*\} \}/, ' }')
        .replace('count: 1', 'count: 2'),
    );
    await writeFile(path.join(repo, 'bls_via', '1', 'model.js'), BLS_SOURCE);
    // An ensemble whose one step is shared_a: its step runs pass shared_a's gate too.
    await mkdir(path.join(repo, 'ensemble_via', '1'), { recursive: true });
    await writeFile(
      path.join(repo, 'ensemble_via', 'config.pbtxt'),
      `name: "ensemble_via"
platform: "ensemble"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [
  { name: "START" data_type: TYPE_FP64 dims: [ 1 ] },
  { name: "END" data_type: TYPE_FP64 dims: [ 1 ] },
  { name: "INSTANCE" data_type: TYPE_STRING dims: [ 1 ] }
]
ensemble_scheduling { step [ {
  model_name: "shared_a" model_version: -1
  input_map { key: "X" value: "X" }
  output_map { key: "START" value: "START" }
  output_map { key: "END" value: "END" }
  output_map { key: "INSTANCE" value: "INSTANCE" }
} ] }
`,
    );
  });
  after(() => rm(repo, { recursive: true, force: true }));

  void it('with execution_count, runs of the two models never overlap', async () => {
    const t = await serve(repo, LIMITED);
    try {
      const runs = await runAll(t, ['shared_a', 'shared_b'], 6);
      assert.equal(runs.length, 12);
      assert.deepEqual(overlaps(runs), []);
      // The resolved table is logged when each model registers.
      const table = t.logs.find(
        (l) => l.includes('"model":"shared_b"') && l.includes('rate limiter resources'),
      );
      assert.ok(table?.includes('"GLOBAL":{"R":1}'), table);
    } finally {
      await t.close();
    }
  });

  void it("BLS calls into a limited model pass the same gate as the model's own requests", async () => {
    const t = await serve(repo, LIMITED);
    try {
      const runs = await runAll(t, ['bls_via', 'shared_b'], 4);
      assert.deepEqual(
        runs.filter((r) => r.model === 'bls_via').map((r) => r.instance),
        ['shared_a_0', 'shared_a_0', 'shared_a_0', 'shared_a_0'],
        'the stamps are shared_a runs, called over BLS',
      );
      assert.deepEqual(overlaps(runs), []);
    } finally {
      await t.close();
    }
  });

  void it("an ensemble's step into a limited model passes the same gate", async () => {
    const t = await serve(repo, LIMITED);
    try {
      const runs = await runAll(t, ['ensemble_via', 'shared_b'], 4);
      assert.deepEqual(
        runs.filter((r) => r.model === 'ensemble_via').map((r) => r.instance),
        ['shared_a_0', 'shared_a_0', 'shared_a_0', 'shared_a_0'],
        "the stamps are shared_a's runs, as the ensemble's step",
      );
      assert.deepEqual(overlaps(runs), []);
    } finally {
      await t.close();
    }
  });

  void it('with --rate-limit=off (the default), the same models run at once', async () => {
    const t = await serve(repo, {});
    try {
      const runs = await runAll(t, ['shared_a', 'shared_b'], 6);
      assert.ok(overlaps(runs).length > 0, 'off: each model runs as soon as its instance is free');
      assert.equal(t.logs.filter((l) => l.includes('rate limiter')).length, 0);
    } finally {
      await t.close();
    }
  });
});

void describe('rate limiter: a per-device resource', () => {
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    // Two instances, each asking for one copy of D on its device (CPU instances: device 0).
    await sleepModel(repo, 'per_device', {
      ms: 80,
      count: 2,
      rateLimiter: 'resources [ { name: "D" count: 1 } ]',
    });
  });
  after(() => rm(repo, { recursive: true, force: true }));

  void it('D:1 on device 0 lets one instance run at a time; D:2 lets both', async () => {
    const one = await serve(repo, {
      rateLimit: parseRateLimitSettings('execution_count', ['D:1:0']),
    });
    try {
      const runs = await runAll(one, ['per_device'], 6);
      assert.deepEqual(overlaps(runs), []);
      assert.deepEqual([...new Set(runs.map((r) => r.instance))].sort(), [
        'per_device_0_0',
        'per_device_0_1',
      ]);
    } finally {
      await one.close();
    }
    const two = await serve(repo, {
      rateLimit: parseRateLimitSettings('execution_count', ['D:2']),
    });
    try {
      const runs = await runAll(two, ['per_device'], 6);
      assert.ok(overlaps(runs).length > 0, 'two copies of D: both instances run at once');
    } finally {
      await two.close();
    }
  });
});

void describe('rate limiter: priorities under contention', () => {
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await sleepModel(repo, 'prio_1', { ms: 25, rateLimiter: `${GLOBAL_R} priority: 1` });
    await sleepModel(repo, 'prio_2', { ms: 25, rateLimiter: `${GLOBAL_R} priority: 2` });
  });
  after(() => rm(repo, { recursive: true, force: true }));

  void it('while both models have work, priority 1 runs about twice as often as priority 2', async () => {
    const t = await serve(repo, LIMITED);
    try {
      const runs = await runAll(t, ['prio_1', 'prio_2'], 15);
      assert.deepEqual(overlaps(runs), []);
      // The first 15 runs happen while both models still have requests waiting.
      const first = [...runs].sort((a, b) => a.start - b.start).slice(0, 15);
      const p1 = first.filter((r) => r.model === 'prio_1').length;
      assert.ok(p1 >= 9 && p1 <= 11, `prio_1 ran ${p1} of the first 15 runs (expected about 10)`);
    } finally {
      await t.close();
    }
  });
});

void describe('rate limiter: unload, explicit resources and shutdown', () => {
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await sleepModel(repo, 'holder', { ms: 150, rateLimiter: GLOBAL_R });
    await sleepModel(repo, 'waiter', { ms: 20, rateLimiter: GLOBAL_R });
    await sleepModel(repo, 'greedy', {
      ms: 10,
      rateLimiter: 'resources [ { name: "R" global: true count: 4 } ]',
    });
  });
  after(() => rm(repo, { recursive: true, force: true }));

  void it('refuses a model asking for more than --rate-limit-resource gives, in Triton words', async () => {
    const t = await serve(repo, {
      rateLimit: parseRateLimitSettings('execution_count', ['R:1']),
    });
    try {
      const index = await postJson(`${t.base}/v2/repository/index`, {});
      const greedy = (index.json as Array<{ name: string; state: string; reason: string }>).find(
        (m) => m.name === 'greedy',
      );
      assert.equal(greedy?.state, 'UNAVAILABLE');
      assert.match(
        greedy?.reason ?? '',
        /Resource count for "R" is limited to 1 which will prevent scheduling of one or more model instances, the minimum required count is 4/,
      );
      // The others serve with R:1 and the failed load left nothing behind.
      const runs = await runAll(t, ['holder', 'waiter'], 2);
      assert.deepEqual(overlaps(runs), []);
    } finally {
      await t.close();
    }
  });

  void it('unloading a model whose runs wait for a resource serves them, then frees the table', async () => {
    const t = await serve(repo, {
      ...LIMITED,
      modelControlMode: 'explicit',
      loadModels: ['holder', 'waiter'],
    });
    try {
      const held = runAll(t, ['holder'], 2);
      await new Promise((r) => setTimeout(r, 40)); // holder holds R now
      const waiting = runAll(t, ['waiter'], 3);
      await new Promise((r) => setTimeout(r, 20));
      const unload = await postJson(`${t.base}/v2/repository/models/waiter/unload`, {});
      assert.equal(unload.status, 200, JSON.stringify(unload.json));
      const runs = [...(await held), ...(await waiting)];
      assert.equal(runs.length, 5, 'every waiting request was answered');
      assert.deepEqual(overlaps(runs), []);
      // Loaded again, it gets R as before: nothing was left held by the unloaded version.
      const load = await postJson(`${t.base}/v2/repository/models/waiter/load`, {});
      assert.equal(load.status, 200, JSON.stringify(load.json));
      const again = await runAll(t, ['waiter', 'holder'], 2);
      assert.deepEqual(overlaps(again), []);
    } finally {
      await t.close();
    }
  });

  void it('a shutdown drains requests that are waiting for a resource', async () => {
    // R:1 given: greedy fails to load, so R stays at one copy (else it would size R to 4).
    // The listeners keep accepting for a second, so every request sent reaches the server.
    const t = await serve(repo, {
      rateLimit: parseRateLimitSettings('execution_count', ['R:1']),
      drainDelaySecs: 1,
    });
    const pending = runAll(t, ['holder', 'waiter'], 3);
    await new Promise((r) => setTimeout(r, 40));
    const drained = await t.server.shutdown(10_000);
    const runs = await pending;
    assert.equal(drained, true);
    assert.equal(runs.length, 6);
    assert.deepEqual(overlaps(runs), []);
  });
});
