// Model management on real servers with real ORT sessions: the control modes, load and unload
// (through the data plane, as every transport calls them), reloads that fail no request, poll mode
// (the concurrent load/unload churn is model-churn.test.ts). The wire forms of the repository API
// are tested per transport.

import assert from 'node:assert/strict';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RepositoryIndexEntry } from '../../src/dataplane/data-plane-api.js';
import { InferenceServerError } from '../../src/errors.js';
import { MLP_RESEEDED_SEED } from '../../scripts/onnx/mlp-weights.js';
import { mlpReference } from '../helpers/mlp-reference.js';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  type SlowModelTiming,
} from '../helpers/slow-model-timing.js';
import { copyModel, FIXTURE_REPOSITORY, tempRepository } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { pendingRequests, waitFor } from '../helpers/wait-for.js';

const NO_FILES = { files: new Map<string, Uint8Array>() };

/** The mlp config with `count` instances of one thread each (a change that forces a reload). */
function mlpConfig(count: number): string {
  return [
    'name: "mlp"',
    'platform: "onnxruntime_onnx"',
    'max_batch_size: 128',
    'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 784 ] } ]',
    'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    'dynamic_batching { }',
    `instance_group [ { count: ${count}, kind: KIND_CPU } ]`,
    'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }',
    '',
  ].join('\n');
}

/** One mlp input row per client, and the answers of version 1 (bundled weights) and 2 (reseeded). */
function mlpCases(n: number): Array<{ x: number[]; v1: Float32Array; v2: Float32Array }> {
  return Array.from({ length: n }, (_, c) => {
    const x = Float32Array.from({ length: 784 }, (_, i) => (((i * 7 + c * 13) % 17) - 8) / 8);
    return { x: [...x], v1: mlpReference(x), v2: mlpReference(x, MLP_RESEEDED_SEED) };
  });
}

function close(actual: readonly number[], expected: Float32Array): boolean {
  return expected.every((e, i) => Math.abs((actual[i] ?? NaN) - e) <= 1e-4 * (1 + Math.abs(e)));
}

async function inferMlp(
  base: string,
  x: readonly number[],
): Promise<{ status: number; version?: string; out?: number[]; error?: string }> {
  const r = await postJson(`${base}/v2/models/mlp/infer`, {
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: x }],
  });
  if (r.status !== 200) return { status: r.status, error: JSON.stringify(r.json) };
  return { status: 200, version: r.json.model_version, out: r.json.outputs[0].data };
}

async function index(t: TestServer): Promise<RepositoryIndexEntry[]> {
  const r = await postJson(`${t.base}/v2/repository/index`, {});
  assert.equal(r.status, 200);
  return r.json as RepositoryIndexEntry[];
}

const rowsOf = (rows: RepositoryIndexEntry[], name: string): RepositoryIndexEntry[] =>
  rows.filter((r) => r.name === name);

async function rejection(p: Promise<unknown>): Promise<InferenceServerError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof InferenceServerError, `not a server error: ${String(e)}`);
    return e;
  }
  assert.fail('expected a rejection');
}

void describe('model control mode none', () => {
  let t: TestServer;
  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(() => t.close());

  void it("refuses load and unload with Triton's error", async () => {
    for (const call of [
      t.server.dataPlane.loadModel('simple', NO_FILES),
      t.server.dataPlane.unloadModel('simple', { unloadDependents: false }),
    ]) {
      const e = await rejection(call);
      assert.equal(e.code, 'MODEL_CONTROL_DISABLED');
      assert.match(e.message, /explicit model load \/ unload is not allowed if polling is enabled/);
    }
  });
});

void describe('model control mode explicit', () => {
  let t: TestServer;
  let repo: string;
  let slow: SlowModelTiming;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copyModel(repo, 'mlp');
    await copySlowModel(repo, 'slow');
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['simple', 'slow'],
    });
    slow = await measureSlowModel(t, 'slow');
  });
  after(() => t.close());

  void it('loads only --load-model at start; the index lists the others by name', async () => {
    const rows = await index(t);
    assert.deepEqual(rowsOf(rows, 'simple'), [
      { name: 'simple', version: '1', state: 'READY', reason: '' },
    ]);
    assert.deepEqual(rowsOf(rows, 'mlp'), [{ name: 'mlp' }]);
    const ready = await t.server.dataPlane.repositoryIndex(true);
    assert.deepEqual(
      ready.map((r) => r.name),
      ['simple', 'slow'],
    );
    assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
    assert.equal((await inferMlp(t.base, mlpCases(1)[0]?.x ?? [])).status, 404);
  });

  void it('loads a model, serves it, unloads it; unload leaves the server ready', async () => {
    const [c] = mlpCases(1);
    assert.ok(c !== undefined);
    await t.server.dataPlane.loadModel('mlp', NO_FILES);
    const ok = await inferMlp(t.base, c.x);
    assert.equal(ok.status, 200, ok.error);
    assert.ok(close(ok.out ?? [], c.v1));
    // Loading an unchanged model again is a no-op: the same sessions keep serving.
    await t.server.dataPlane.loadModel('mlp', NO_FILES);
    assert.deepEqual(rowsOf(await index(t), 'mlp'), [
      { name: 'mlp', version: '1', state: 'READY', reason: '' },
    ]);

    await t.server.dataPlane.unloadModel('mlp', { unloadDependents: false });
    assert.deepEqual(rowsOf(await index(t), 'mlp'), [
      { name: 'mlp', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' },
    ]);
    const refused = await inferMlp(t.base, c.x);
    assert.equal(refused.status, 503);
    assert.match(refused.error ?? '', /has no available versions/);
    assert.equal((await fetch(`${t.base}/v2/models/mlp/ready`)).status, 503);
    assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
    // Unloading what does not serve succeeds; a name no repository holds does not.
    await t.server.dataPlane.unloadModel('mlp', { unloadDependents: false });
    assert.equal(
      (await rejection(t.server.dataPlane.loadModel('nope', NO_FILES))).code,
      'MODEL_NOT_FOUND',
    );
    assert.equal(
      (await rejection(t.server.dataPlane.unloadModel('nope', { unloadDependents: false }))).code,
      'MODEL_NOT_FOUND',
    );
    assert.ok(!(await index(t)).some((r) => r.name === 'nope'), 'a failed lookup adds no entry');
  });

  void it('unload lets queued and running requests finish and refuses new ones at once', async () => {
    const rows = slow.rowsFor(300);
    const accepted = Array.from({ length: 4 }, (_, i) =>
      inferSlow(t.base, 'slow', rows, { seed: i }),
    );
    // One runs, the rest wait in the queue.
    const pending = await waitFor(
      () => pendingRequests(t.metricsBase, 'slow'),
      (n) => n >= 3,
    );
    assert.ok(pending >= 3, `pending ${pending}`);
    const unloaded = t.server.dataPlane.unloadModel('slow', { unloadDependents: false });
    const late = await inferSlow(t.base, 'slow', 1);
    assert.equal(late.status, 503, JSON.stringify(late.json));
    assert.match(JSON.stringify(late.json), /has no available versions/);
    for (const r of await Promise.all(accepted))
      assert.equal(r.status, 200, JSON.stringify(r.json));
    await unloaded;
    assert.deepEqual(rowsOf(await index(t), 'slow'), [
      { name: 'slow', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' },
    ]);
    await t.server.dataPlane.loadModel('slow', NO_FILES);
    assert.equal((await inferSlow(t.base, 'slow', 1)).status, 200);
  });

  void it('a reload that fails leaves the old version serving and says why', async () => {
    const [c] = mlpCases(1);
    assert.ok(c !== undefined);
    const dir = path.join(repo, 'mlp');
    await writeFile(path.join(dir, 'config.pbtxt'), mlpConfig(1));
    await t.server.dataPlane.loadModel('mlp', NO_FILES);
    // A config that does not parse.
    await writeFile(path.join(dir, 'config.pbtxt'), 'name: "mlp" max_batch_size: [');
    const syntax = await rejection(t.server.dataPlane.loadModel('mlp', NO_FILES));
    assert.equal(syntax.code, 'CONFIG_SYNTAX');
    assert.ok(!syntax.message.includes(repo), `a path leaked: ${syntax.message}`);
    let rows = rowsOf(await index(t), 'mlp');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.state, 'READY');
    assert.match(rows[0]?.reason ?? '', /config\.pbtxt/);
    assert.ok(!(rows[0]?.reason ?? '').includes(repo), 'no absolute paths in reasons');
    assert.equal((await inferMlp(t.base, c.x)).status, 200);

    // A new version whose model file ORT cannot open.
    await writeFile(path.join(dir, 'config.pbtxt'), mlpConfig(1));
    await mkdir(path.join(dir, '2'));
    await cp(
      path.join(FIXTURE_REPOSITORY, 'bad_truncated', '1', 'model.onnx'),
      path.join(dir, '2', 'model.onnx'),
    );
    const broken = await rejection(t.server.dataPlane.loadModel('mlp', NO_FILES));
    assert.equal(broken.code, 'MODEL_LOAD_FAILED');
    rows = rowsOf(await index(t), 'mlp');
    assert.equal(rows.find((r) => r.version === '1')?.state, 'READY');
    assert.equal(rows.find((r) => r.version === '2')?.state, 'UNAVAILABLE');
    for (let i = 0; i < 20; i++) {
      const r = await inferMlp(t.base, c.x);
      assert.equal(r.status, 200, r.error);
      assert.equal(r.version, '1');
    }
    await rm(path.join(dir, '2'), { recursive: true });
    await t.server.dataPlane.loadModel('mlp', NO_FILES);
    assert.equal(rowsOf(await index(t), 'mlp').find((r) => r.version === '1')?.reason, '');
  });

  void it('a load that fails after an unload shows its reason and counts for readiness', async () => {
    const config = path.join(repo, 'mlp', 'config.pbtxt');
    await t.server.dataPlane.unloadModel('mlp', { unloadDependents: false });
    await writeFile(config, 'name: "mlp" max_batch_size: [');
    await rejection(t.server.dataPlane.loadModel('mlp', NO_FILES));
    const rows = rowsOf(await index(t), 'mlp');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.state, 'UNAVAILABLE');
    assert.match(rows[0]?.reason ?? '', /mlp\/config\.pbtxt/);
    assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 503, 'strict readiness');
    await writeFile(config, mlpConfig(1));
    await t.server.dataPlane.loadModel('mlp', NO_FILES);
    assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
  });
});

void describe('reload under load', () => {
  const CLIENTS = 8;
  const RELOADS = 20;
  let t: TestServer;
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    const dir = await copyModel(repo, 'mlp');
    await writeFile(path.join(dir, 'config.pbtxt'), mlpConfig(1));
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['mlp'],
    });
  });
  after(() => t.close());

  void it(`${CLIENTS} clients infer through ${RELOADS} reloads and a new version: no request fails`, async () => {
    const cases = mlpCases(CLIENTS);
    const dir = path.join(repo, 'mlp');
    let stop = false;
    const failures: string[] = [];
    const answered = { '1': 0, '2': 0 } as Record<string, number>;
    const client = async (c: (typeof cases)[number]): Promise<void> => {
      while (!stop) {
        const r = await inferMlp(t.base, c.x);
        if (r.status !== 200) {
          failures.push(`${r.status} ${r.error ?? ''}`);
          continue;
        }
        const expected = r.version === '2' ? c.v2 : c.v1;
        if (!close(r.out ?? [], expected)) failures.push(`wrong answer for version ${r.version}`);
        answered[r.version ?? '?'] = (answered[r.version ?? '?'] ?? 0) + 1;
      }
    };
    const clients = cases.map(client);
    for (let i = 0; i < RELOADS; i++) {
      if (i === RELOADS / 2) {
        // A new version: the default policy (latest 1) moves every request to it.
        await mkdir(path.join(dir, '2'));
        await cp(
          path.join(FIXTURE_REPOSITORY, 'mlp_reseeded', '1', 'model.onnx'),
          path.join(dir, '2', 'model.onnx'),
        );
      }
      await writeFile(path.join(dir, 'config.pbtxt'), mlpConfig(1 + (i % 2)));
      await t.server.dataPlane.loadModel('mlp', NO_FILES);
    }
    stop = true;
    await Promise.all(clients);
    assert.deepEqual(failures, []);
    assert.ok((answered['1'] ?? 0) > 0 && (answered['2'] ?? 0) > 0, JSON.stringify(answered));
    assert.deepEqual(rowsOf(await index(t), 'mlp'), [
      { name: 'mlp', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' },
      { name: 'mlp', version: '2', state: 'READY', reason: '' },
    ]);
  });
});

void describe('model control mode poll', () => {
  let t: TestServer;
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    const dir = await copyModel(repo, 'mlp');
    await writeFile(path.join(dir, 'config.pbtxt'), mlpConfig(1));
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'poll',
      repositoryPollSecs: 1,
    });
  });
  after(() => t.close());

  const until = (
    check: (rows: RepositoryIndexEntry[]) => boolean,
  ): Promise<RepositoryIndexEntry[]> => waitFor(() => index(t), check, 30_000);

  void it('refuses the load API, as Triton does in poll mode', async () => {
    const e = await rejection(t.server.dataPlane.loadModel('simple', NO_FILES));
    assert.equal(e.code, 'MODEL_CONTROL_DISABLED');
  });

  void it('picks up a new model', async () => {
    await copyModel(repo, 'identity_bytes');
    const rows = await until((r) => rowsOf(r, 'identity_bytes')[0]?.state === 'READY');
    assert.equal(rowsOf(rows, 'identity_bytes')[0]?.state, 'READY');
  });

  void it('picks up a new version and retires the old one (latest 1)', async () => {
    const [c] = mlpCases(1);
    assert.ok(c !== undefined);
    await mkdir(path.join(repo, 'mlp', '2'));
    await cp(
      path.join(FIXTURE_REPOSITORY, 'mlp_reseeded', '1', 'model.onnx'),
      path.join(repo, 'mlp', '2', 'model.onnx'),
    );
    const rows = await until(
      (r) => rowsOf(r, 'mlp').find((x) => x.version === '1')?.state === 'UNAVAILABLE',
    );
    assert.equal(rowsOf(rows, 'mlp').find((x) => x.version === '2')?.state, 'READY');
    const answer = await inferMlp(t.base, c.x);
    assert.equal(answer.version, '2');
    assert.ok(close(answer.out ?? [], c.v2));
  });

  void it('reloads a changed config, keeps serving through a broken one, recovers when fixed', async () => {
    const config = path.join(repo, 'mlp', 'config.pbtxt');
    await writeFile(config, mlpConfig(2));
    const changed = await waitFor(
      async () => (await (await fetch(`${t.base}/v2/models/mlp/config`)).json()) as any,
      (c) => c.instance_group?.[0]?.count === 2,
      30_000,
    );
    assert.equal(changed.instance_group[0].count, 2, t.logs.slice(-5).join('\n'));
    await writeFile(config, 'this is not a config');
    const v2 = (r: RepositoryIndexEntry[]): RepositoryIndexEntry | undefined =>
      rowsOf(r, 'mlp').find((x) => x.version === '2');
    const broken = await until((r) => /config\.pbtxt/.test(v2(r)?.reason ?? ''));
    assert.equal(v2(broken)?.state, 'READY');
    assert.match(v2(broken)?.reason ?? '', /mlp\/config\.pbtxt:1:1: unknown field "this"/);
    assert.equal((await inferMlp(t.base, mlpCases(1)[0]?.x ?? [])).status, 200);
    await writeFile(config, mlpConfig(1));
    const fixed = await waitFor(
      async () => (await (await fetch(`${t.base}/v2/models/mlp/config`)).json()) as any,
      (c) => c.instance_group?.[0]?.count === 1,
      30_000,
    );
    assert.equal(fixed.instance_group[0].count, 1);
    assert.equal(rowsOf(await index(t), 'mlp').find((x) => x.version === '2')?.reason, '');
  });

  void it('unloads and forgets a removed model', async () => {
    await rm(path.join(repo, 'simple'), { recursive: true });
    const rows = await until((r) => rowsOf(r, 'simple').length === 0);
    assert.deepEqual(rowsOf(rows, 'simple'), []);
    assert.equal((await fetch(`${t.base}/v2/models/simple/ready`)).status, 404);
  });
});

void describe('several repositories, and shutting down mid-load', () => {
  void it('loads from whichever root holds the model; a name in two roots is refused', async () => {
    const first = await tempRepository();
    const second = await tempRepository();
    await copyModel(first, 'simple');
    await copyModel(second, 'identity_bytes');
    await copyModel(first, 'mlp');
    await copyModel(second, 'mlp');
    const t = await startTestServer({
      modelRepositories: [first, second],
      modelControlMode: 'explicit',
      loadModels: ['simple'],
    });
    try {
      await t.server.dataPlane.loadModel('identity_bytes', NO_FILES);
      const rows = await index(t);
      assert.equal(rowsOf(rows, 'identity_bytes')[0]?.state, 'READY');
      const twice = await rejection(t.server.dataPlane.loadModel('mlp', NO_FILES));
      assert.equal(twice.code, 'CONFIG_INVALID');
      assert.match(twice.message, /'mlp' appears in more than one model repository/);
    } finally {
      await t.close();
    }
  });

  void it('a shutdown during a load completes, and the load is answered', async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copyModel(repo, 'mlp');
    const t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['simple'],
    });
    const load = t.server.dataPlane.loadModel('mlp', NO_FILES).then(
      () => 'loaded',
      (e: unknown) => String(e),
    );
    assert.equal(await t.server.shutdown(20_000), true);
    assert.match(await load, /loaded|shutting down/);
    // Calls after the drain began are refused.
    const late = await rejection(t.server.dataPlane.loadModel('mlp', NO_FILES));
    assert.equal(late.code, 'SHUTTING_DOWN');
  });
});

void describe('load overrides over HTTP (explicit mode)', () => {
  let t: TestServer;
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['simple'],
    });
  });
  after(() => t.close());

  const load = (model: string, body: unknown): ReturnType<typeof postJson> =>
    postJson(`${t.base}/v2/repository/models/${model}/load`, body);
  const simpleInputs = {
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(3) },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
    ],
  };

  void it('a config override replaces config.pbtxt (here: two instances instead of one)', async () => {
    const config = (await (await fetch(`${t.base}/v2/models/simple/config`)).json()) as any;
    assert.equal(config.instance_group[0].count, 1);
    const override = { ...config, instance_group: [{ count: 2, kind: 'KIND_CPU' }] };
    const r = await load('simple', { parameters: { config: JSON.stringify(override) } });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const now = (await (await fetch(`${t.base}/v2/models/simple/config`)).json()) as any;
    assert.equal(now.instance_group[0].count, 2);
    const answer = await postJson(`${t.base}/v2/models/simple/infer`, simpleInputs);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json.outputs[0].data, Array(16).fill(4));
    // A config that names another model is refused, and what served keeps serving.
    const wrong = await load('simple', {
      parameters: { config: JSON.stringify({ ...override, name: 'other' }) },
    });
    assert.equal(wrong.status, 400);
    assert.match(wrong.json.error, /directory name must equal model name/);
    assert.equal((await postJson(`${t.base}/v2/models/simple/infer`, simpleInputs)).status, 200);
  });

  void it('file overrides serve a model no repository holds, from a private directory', async () => {
    const bytes = await readFile(path.join(repo, 'simple', '1', 'model.onnx'));
    const config = (await (await fetch(`${t.base}/v2/models/simple/config`)).json()) as any;
    const r = await load('uploaded', {
      parameters: {
        config: JSON.stringify({ ...config, name: 'uploaded' }),
        'file:1/model.onnx': bytes.toString('base64'),
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const answer = await postJson(`${t.base}/v2/models/uploaded/infer`, simpleInputs);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.deepEqual(answer.json.outputs[1].data, Array(16).fill(2));
    assert.deepEqual(rowsOf(await index(t), 'uploaded'), [
      { name: 'uploaded', version: '1', state: 'READY', reason: '' },
    ]);
    const unload = await postJson(`${t.base}/v2/repository/models/uploaded/unload`, {});
    assert.equal(unload.status, 200);
  });

  void it('refuses file names that leave the private directory, and writes nothing', async () => {
    const bytes = Buffer.from('not a model').toString('base64');
    const before = (await readdir(os.tmpdir())).filter((n) => n.startsWith('infernode-model-'));
    for (const name of [
      '1/../../escape.onnx',
      '../1/model.onnx',
      '/tmp/escape.onnx',
      'model.onnx',
    ]) {
      const r = await load('sneaky', {
        parameters: { config: JSON.stringify({ name: 'sneaky' }), [`file:${name}`]: bytes },
      });
      assert.equal(r.status, 400, `${name}: ${JSON.stringify(r.json)}`);
      assert.match(r.json.error, /file override/);
    }
    const after = (await readdir(os.tmpdir())).filter((n) => n.startsWith('infernode-model-'));
    assert.deepEqual(after, before);
    await assert.rejects(stat(path.join(os.tmpdir(), 'escape.onnx')));
    assert.deepEqual(rowsOf(await index(t), 'sneaky'), []);
  });
});
