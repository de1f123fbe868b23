// The load and unload steps with a fake version starter (no workers): a model directory on disk goes
// through the real config pipeline and plan, versions "start" when the test says so, and serve
// requests on an execution target the test answers. What the lifecycle records at each step is
// checked through the index rows, the registry and the log: failed loads, replacement while the old
// version serves, unload with requests in flight, and operations on one model in order.

import assert from 'node:assert/strict';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { parseBackendConfig } from '../../../src/config/backend-config.js';
import { fail } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { MetricsCatalog } from '../../../src/metrics/metrics-catalog.js';
import { LoadSteps, type VersionStarter } from '../../../src/repository/load-steps.js';
import { indexRows, ModelLifecycle } from '../../../src/repository/model-lifecycle.js';
import { ModelRegistry } from '../../../src/repository/model-registry.js';
import type { ModelVersion } from '../../../src/repository/model-version.js';
import { OperationChains } from '../../../src/repository/operation-chains.js';
import { listVersions } from '../../../src/repository/scan-repository.js';
import { ServerHost } from '../../../src/repository/server-host.js';
import { tempRepository } from '../../helpers/temp-repository.js';
import { throwsCode } from '../protocol/expect-error.js';
import { flush, ManualTarget, recorder, request } from '../scheduler/fixtures.js';
import { configFromText, servedVersion, TWICE_CONFIG } from './model-version-fixture.js';

const MODEL_CONFIG = `name: "m"\nplatform: "onnxruntime_onnx"\n${TWICE_CONFIG}`;
const SERVING_CONFIG = configFromText(TWICE_CONFIG, 'm');

const repos: string[] = [];
after(async () => {
  for (const r of repos) await rm(r, { recursive: true, force: true });
});

/** A version start the test finishes: `succeed` serves a fake version, `fail` rejects. */
interface PendingStart {
  readonly version: number;
  readonly target: ManualTarget;
  succeed(): ModelVersion;
  fail(e: unknown): void;
}

/** A repository holding model `m`, load steps over it with a fake starter, and what they log. */
async function harness() {
  const repo = await tempRepository();
  repos.push(repo);
  const dir = path.join(repo, 'm');
  await writeVersion(dir, 1);
  await writeFile(path.join(dir, 'config.pbtxt'), MODEL_CONFIG);

  const starts: PendingStart[] = [];
  let started: (() => void) | undefined;
  const starter: VersionStarter = (_configured, version) =>
    new Promise<ModelVersion>((resolve, reject) => {
      const target = new ManualTarget(1);
      starts.push({
        version,
        target,
        succeed: () => {
          const v = servedVersion(SERVING_CONFIG, version, target);
          resolve(v);
          return v;
        },
        fail: reject,
      });
      started?.();
    });
  /** Resolves once `n` starts have been asked for in all. */
  const startsAsked = (n: number): Promise<void> =>
    new Promise((resolve) => {
      started = () => {
        if (starts.length >= n) resolve();
      };
      started();
    });

  const log: Array<{ msg: string; reason?: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') log.push(JSON.parse(line));
      done();
    },
  });
  const registry = new ModelRegistry<ModelLifecycle>();
  const steps = new LoadSteps(
    {
      backend: parseBackendConfig([]),
      disableAutoComplete: true,
      modelConfigName: '',
      sabTensors: false,
      doorbell: false,
      maxInputBytes: 1 << 20,
      catalog: new MetricsCatalog(),
      logger: createLogger(0, sink),
      cores: 4,
    },
    new ServerHost(registry),
    [repo],
    starter,
  );
  const entry = new ModelLifecycle('m');
  registry.add(entry);

  /**
   * Plans and commits a load of `m` as it is on disk, as the model manager does (commit records
   * its own failures); resolves with the retirement.
   */
  async function load(): Promise<{ readonly retired: Promise<void> }> {
    const source = { name: 'm', dir, versions: await listVersions(dir) };
    const plan = await steps.plan(entry, source, undefined);
    if (plan === undefined) throw new Error('nothing to load');
    return steps.commit(plan, steps.budget([plan]));
  }

  /** Loads and serves every version asked for; returns them. */
  async function loadServing(): Promise<ModelVersion[]> {
    const before = starts.length;
    const loading = load();
    await startsAsked(before + 1);
    const versions = starts.slice(before).map((s) => s.succeed());
    await (
      await loading
    ).retired;
    return versions;
  }

  const rows = (): string[] =>
    indexRows(entry).map((r) => `${r.version ?? '-'}:${r.state ?? ''}:${r.reason ?? ''}`);
  const messages = (): string[] => log.map((l) => l.msg);
  return {
    repo,
    dir,
    steps,
    registry,
    entry,
    starts,
    startsAsked,
    load,
    loadServing,
    rows,
    messages,
    log,
  };
}

async function writeVersion(dir: string, v: number): Promise<void> {
  await mkdir(path.join(dir, String(v)), { recursive: true });
  await writeFile(path.join(dir, String(v), 'model.onnx'), 'not read: the starter is fake');
}

/** Changes a version file's identity (its modification time), so a reload restarts it. */
async function touch(dir: string, v: number, seconds: number): Promise<void> {
  await utimes(path.join(dir, String(v), 'model.onnx'), seconds, seconds);
}

void describe('LoadSteps: failed loads', () => {
  void it('records a failed first load as UNAVAILABLE with its reason, paths scrubbed', async () => {
    const h = await harness();
    const loading = h.load();
    await h.startsAsked(1);
    assert.deepEqual(h.rows(), ['1:LOADING:'], 'the version shows LOADING while it starts');
    h.starts[0]?.fail(
      fail('MODEL_LOAD_FAILED', `${path.join(h.repo, 'm', '1', 'model.onnx')}: bad model`),
    );
    await assert.rejects(loading, {
      code: 'MODEL_LOAD_FAILED',
      message: 'm/1/model.onnx: bad model',
    });
    assert.equal(h.entry.state, 'UNAVAILABLE');
    assert.equal(h.entry.reason, 'm/1/model.onnx: bad model');
    assert.deepEqual(h.rows(), ['1:UNAVAILABLE:m/1/model.onnx: bad model']);
    throwsCode(
      () => h.registry.resolve('m', undefined),
      'MODEL_NOT_READY',
      "Request for unknown model: 'm' has no available versions: m/1/model.onnx: bad model",
    );
    assert.equal(h.registry.allReady(), false, 'a failed load counts against strict readiness');
    assert.deepEqual(h.messages(), ['model failed to load']);
  });

  void it('stops the versions that did start when another fails; none of them serves', async () => {
    const h = await harness();
    await writeVersion(h.dir, 2);
    await writeFile(
      path.join(h.dir, 'config.pbtxt'),
      `${MODEL_CONFIG}\nversion_policy { all { } }`,
    );
    const loading = h.load();
    await h.startsAsked(2);
    const one = h.starts.find((s) => s.version === 1);
    const two = h.starts.find((s) => s.version === 2);
    const v1 = one?.succeed();
    two?.fail(new Error('out of memory'));
    await assert.rejects(loading, /out of memory/);
    assert.equal(h.entry.versions.size, 0);
    // The started version was unloaded: its scheduler takes no request.
    await assert.rejects(v1?.scheduler.enqueue(request()) ?? Promise.resolve(), {
      code: 'SHUTTING_DOWN',
    });
    assert.deepEqual(h.rows(), ['1:UNAVAILABLE:out of memory', '2:UNAVAILABLE:out of memory']);
  });

  void it('keeps the ready version serving when a reload fails, and records why', async () => {
    const h = await harness();
    const [v1] = await h.loadServing();
    await touch(h.dir, 1, 1_000_000);
    const reloading = h.load();
    await h.startsAsked(2);
    h.starts[1]?.fail(new Error('session creation failed'));
    await assert.rejects(reloading, /session creation failed/);
    assert.equal(h.entry.state, 'READY');
    assert.equal(h.registry.resolve('m', undefined), v1);
    assert.deepEqual(h.rows(), ['1:READY:session creation failed']);
    assert.deepEqual(h.messages(), ['model failed to load; its previous versions keep serving']);
  });
});

void describe('LoadSteps: replacement and unload', () => {
  void it('keeps the old version serving until the new one is ready, then drains it', async () => {
    const h = await harness();
    const [v1] = await h.loadServing();
    const old = h.starts[0];
    const inFlight = recorder(v1?.scheduler as ModelVersion['scheduler']).send(request());
    await flush();
    assert.equal(old?.target.running, 1);

    // Version 2 arrives; the default policy (latest 1) replaces version 1 with it.
    await writeVersion(h.dir, 2);
    const reloading = h.load();
    await h.startsAsked(2);
    assert.equal(h.registry.resolve('m', undefined), v1, 'the old version serves while 2 starts');
    assert.deepEqual(h.rows(), ['1:READY:', '2:LOADING:']);

    const v2 = h.starts[1]?.succeed();
    const { retired } = await reloading;
    assert.equal(h.registry.resolve('m', undefined), v2, 'new requests go to the new version');
    assert.deepEqual(h.rows(), ['1:UNLOADING:', '2:READY:']);
    assert.deepEqual(
      h.steps.leavingSchedulers(),
      [v1?.scheduler],
      'the old version drains its request in flight',
    );
    assert.ok(h.messages().includes('model switched to its new versions'));

    old?.target.complete(0);
    await retired;
    assert.ok(inFlight.result !== undefined, 'the request in flight was answered');
    assert.equal(inFlight.error, undefined);
    assert.deepEqual(h.steps.leavingSchedulers(), []);
    assert.deepEqual(h.rows(), ['1:UNAVAILABLE:unloaded', '2:READY:']);
  });

  void it('restarts a version whose file changed, the old object serving until the switch', async () => {
    const h = await harness();
    const [first] = await h.loadServing();
    await touch(h.dir, 1, 2_000_000);
    const reloading = h.load();
    await h.startsAsked(2);
    assert.equal(h.registry.resolve('m', '1'), first);
    const second = h.starts[1]?.succeed();
    await (
      await reloading
    ).retired;
    assert.equal(h.registry.resolve('m', '1'), second);
    assert.deepEqual(h.rows(), ['1:READY:']);
  });

  void it('is a no-op for a reload with nothing changed, which clears an earlier failure', async () => {
    const h = await harness();
    await h.loadServing();
    h.steps.markFailed(h.entry, new Error('an earlier reload failed'));
    assert.deepEqual(h.rows(), ['1:READY:an earlier reload failed']);
    const plan = await h.steps.plan(
      h.entry,
      {
        name: 'm',
        dir: h.dir,
        versions: await listVersions(h.dir),
      },
      undefined,
    );
    assert.equal(plan, undefined);
    assert.equal(h.starts.length, 1, 'nothing started');
    assert.deepEqual(h.rows(), ['1:READY:']);
  });

  void it('unloads with requests in flight: new ones refused at once, those in flight finish', async () => {
    const h = await harness();
    const [v1] = await h.loadServing();
    const target = h.starts[0]?.target;
    const inFlight = recorder(v1?.scheduler as ModelVersion['scheduler']).send(request());
    await flush();

    const unloading = h.steps.unload(h.entry);
    assert.equal(h.entry.state, 'UNLOADING');
    assert.equal(h.entry.wanted, false);
    assert.deepEqual(h.rows(), ['1:UNLOADING:']);
    throwsCode(() => h.registry.resolve('m', undefined), 'MODEL_NOT_READY');
    assert.equal(h.registry.allReady(), true, 'a model unloaded on request is not counted');
    await flush();
    assert.equal(inFlight.result, undefined, 'still running');
    assert.deepEqual(h.rows(), ['1:UNLOADING:']);

    target?.complete(0);
    await unloading;
    assert.ok(inFlight.result !== undefined);
    assert.equal(h.entry.state, 'UNAVAILABLE');
    assert.equal(h.entry.reason, 'unloaded');
    assert.deepEqual(h.rows(), ['1:UNAVAILABLE:unloaded']);
    assert.equal(h.messages().at(-1), 'model unloaded');
  });
});

void describe('LoadSteps: operations on one model in order', () => {
  void it('runs an unload asked during a reload after the reload and its drain', async () => {
    const h = await harness();
    const [v1] = await h.loadServing();
    const oldTarget = h.starts[0]?.target;
    const inFlight = recorder(v1?.scheduler as ModelVersion['scheduler']).send(request());
    await flush();

    // As the model manager does: one chain per model, the retirement handed over as deferred work.
    const chains = new OperationChains(() => assert.fail('no deferred work fails here'));
    const order: string[] = [];
    await writeVersion(h.dir, 2);
    const reload = chains.run('m', async (defer) => {
      const { retired } = await h.load();
      order.push('switched');
      defer(retired.then(() => void order.push('retired')));
    });
    const unload = chains.run('m', async () => {
      order.push('unload begins');
      await h.steps.unload(h.entry);
      order.push('unloaded');
    });

    await h.startsAsked(2);
    await flush();
    assert.deepEqual(order, []);
    assert.equal(h.entry.state, 'READY', 'the unload waits for the load before it');
    assert.deepEqual(h.rows(), ['1:READY:', '2:LOADING:']);

    h.starts[1]?.succeed();
    await reload;
    await flush();
    assert.deepEqual(
      order,
      ['switched'],
      'the unload also waits for the replaced version to drain',
    );
    assert.deepEqual(h.rows(), ['1:UNLOADING:', '2:READY:']);

    oldTarget?.complete(0);
    await unload;
    assert.ok(inFlight.result !== undefined);
    assert.deepEqual(order, ['switched', 'retired', 'unload begins', 'unloaded']);
    assert.deepEqual(h.rows(), ['1:UNAVAILABLE:unloaded', '2:UNAVAILABLE:unloaded']);
    await chains.idle();
  });

  void it('refuses a second load of a version that is still loading (what the chains prevent)', async () => {
    const h = await harness();
    const first = h.load();
    await h.startsAsked(1);
    const source = { name: 'm', dir: h.dir, versions: [1] };
    const plan = await h.steps.plan(h.entry, source, undefined);
    assert.ok(plan !== undefined);
    await assert.rejects(
      h.steps.commit(plan, h.steps.budget([plan])),
      /illegal lifecycle transition startLoading on version 1, which is LOADING/,
    );
    assert.equal(h.starts.length, 1, 'nothing started for the refused load');
    h.starts[0]?.succeed();
    await (
      await first
    ).retired;
    assert.deepEqual(h.rows(), ['1:READY:']);
  });
});
