// The model manager through its public API (load, unload, close) with a fake version starter: real
// model directories on disk and the real config pipeline, plan and lifecycle, but versions that
// "start" only when the test says so and serve requests on an execution target the test answers.
// What it adds to the load steps (load-steps.test.ts): the answers of the load and unload calls,
// the one chain of operations per model (a load asked during another load, an unload or close
// during a load, load / unload / load in order), and models that do not wait for each other. The
// manager sets no timer in explicit mode (only poll mode's poller does), so no clock is needed.

import assert from 'node:assert/strict';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { parseBackendConfig } from '../../../src/config/backend-config.js';
import { fail } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { MetricsCatalog } from '../../../src/metrics/metrics-catalog.js';
import type { VersionStarter } from '../../../src/repository/load-steps.js';
import { indexRows } from '../../../src/repository/model-lifecycle.js';
import { ModelManager, type ModelControlMode } from '../../../src/repository/model-manager.js';
import type { ModelVersion } from '../../../src/repository/model-version.js';
import { tempRepository } from '../../helpers/temp-repository.js';
import { throwsCode } from '../protocol/expect-error.js';
import { flush, ManualTarget, recorder, request } from '../scheduler/fixtures.js';
import { servedVersion, TWICE_CONFIG } from './model-version-fixture.js';

const repos: string[] = [];
after(async () => {
  for (const r of repos) await rm(r, { recursive: true, force: true });
});

/** A version start the test finishes: `succeed` serves a fake version, `fail` rejects. */
interface PendingStart {
  readonly model: string;
  readonly version: number;
  readonly target: ManualTarget;
  succeed(): ModelVersion;
  fail(e: unknown): void;
}

/** A repository holding `models` (version 1 each) and a manager over it with a fake starter. */
async function harness(models: readonly string[] = ['m'], mode: ModelControlMode = 'explicit') {
  const repo = await tempRepository();
  repos.push(repo);
  for (const name of models) {
    await writeVersion(path.join(repo, name), 1);
    await writeFile(
      path.join(repo, name, 'config.pbtxt'),
      `name: "${name}"\nplatform: "onnxruntime_onnx"\n${TWICE_CONFIG}`,
    );
  }

  const starts: PendingStart[] = [];
  const waiters: Array<() => void> = [];
  const starter: VersionStarter = (configured, version) =>
    new Promise<ModelVersion>((resolve, reject) => {
      const target = new ManualTarget(1);
      starts.push({
        model: configured.config.name,
        version,
        target,
        succeed: () => {
          const v = servedVersion(configured.config, version, target);
          resolve(v);
          return v;
        },
        fail: reject,
      });
      for (const w of waiters.splice(0)) w();
    });

  /** The `n`th start asked for (counting from 1), once it has been asked for. */
  async function start(n: number): Promise<PendingStart> {
    while (starts.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return starts[n - 1] as PendingStart;
  }

  const log: Array<{ msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') log.push(JSON.parse(line));
      done();
    },
  });
  const manager = new ModelManager(
    {
      mode,
      repositories: [repo],
      startupModels: [],
      pollSecs: 0,
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
    starter,
  );

  /** Loads `name` and serves the version its start asks for; returns that version. */
  async function loadServing(name = 'm'): Promise<ModelVersion> {
    const loading = manager.load(name, undefined);
    const s = await start(starts.length + 1);
    const v = s.succeed();
    await loading;
    return v;
  }

  const entry = (name = 'm') => {
    const e = manager.registry.entry(name);
    assert.ok(e !== undefined, `no registry entry for ${name}`);
    return e;
  };
  /** `version:state:reason` for each of the model's index rows. */
  const rows = (name = 'm'): string[] =>
    indexRows(entry(name)).map((r) => `${r.version ?? '-'}:${r.state ?? ''}:${r.reason ?? ''}`);
  const serving = (name = 'm'): ModelVersion => manager.registry.resolve(name, undefined);
  return { repo, manager, starts, start, loadServing, entry, rows, serving, log };
}

async function writeVersion(dir: string, v: number): Promise<void> {
  await mkdir(path.join(dir, String(v)), { recursive: true });
  await writeFile(path.join(dir, String(v), 'model.onnx'), 'not read: the starter is fake');
}

/** Changes a version file's identity (its modification time), so a reload restarts it. */
async function touch(dir: string, v: number, seconds: number): Promise<void> {
  await utimes(path.join(dir, String(v), 'model.onnx'), seconds, seconds);
}

/** Lets the chain's scans, plans and switches run (each step is a few turns of the loop). */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await flush();
}

/**
 * `p`, which must settle within a few turns of the loop with no I/O in between: a call that should
 * answer now fails the test instead of hanging it.
 */
async function soon<T>(p: Promise<T>, what: string): Promise<T> {
  const late = Symbol('late');
  const r = await Promise.race([p, settle().then(() => late)]);
  if (r === late) assert.fail(`${what} did not settle`);
  return r as T;
}

/** Records the order in which `calls` settle, by name. */
function trackOrder(calls: ReadonlyArray<readonly [string, Promise<void>]>) {
  const order: string[] = [];
  const all = Promise.all(
    calls.map(([name, p]) =>
      p.then(
        () => void order.push(name),
        (e: unknown) => void order.push(`${name} failed: ${String(e)}`),
      ),
    ),
  );
  return { order, all };
}

void describe('ModelManager: failed loads', () => {
  void it('answers a failed first load with Triton’s prefix; the model is UNAVAILABLE with the reason', async () => {
    const h = await harness();
    const loading = h.manager.load('m', undefined);
    const s = await h.start(1);
    assert.equal(h.entry().state, 'LOADING');
    assert.deepEqual(h.rows(), ['1:LOADING:']);
    s.fail(fail('MODEL_LOAD_FAILED', 'bad model'));
    await assert.rejects(loading, {
      code: 'MODEL_LOAD_FAILED',
      message: "failed to load 'm', bad model",
    });
    assert.equal(h.entry().state, 'UNAVAILABLE');
    assert.equal(h.entry().reason, 'bad model');
    assert.deepEqual(h.rows(), ['1:UNAVAILABLE:bad model']);
    throwsCode(() => h.serving(), 'MODEL_NOT_READY', /has no available versions: bad model/);
    const index = await h.manager.index(false);
    assert.deepEqual(index, [
      { name: 'm', version: '1', state: 'UNAVAILABLE', reason: 'bad model' },
    ]);
    assert.deepEqual(await h.manager.index(true), [], 'a failed model is not in the ready index');
  });

  void it('keeps the previous version serving when a reload fails, and serves the next good one', async () => {
    const h = await harness();
    const dir = path.join(h.repo, 'm');
    const v1 = await h.loadServing();
    await touch(dir, 1, 1_000_000);
    const reloading = h.manager.load('m', undefined);
    const s = await h.start(2);
    assert.equal(h.serving(), v1, 'the old version serves while the new one starts');
    s.fail(fail('MODEL_LOAD_FAILED', 'session creation failed'));
    await assert.rejects(reloading, {
      code: 'MODEL_LOAD_FAILED',
      message: "failed to load 'm', session creation failed",
    });
    assert.equal(h.serving(), v1);
    assert.equal(h.entry().state, 'READY');
    assert.deepEqual(h.rows(), ['1:READY:session creation failed']);
    const inFlight = recorder(v1.scheduler).send(request());
    await flush();
    assert.equal(h.starts[0]?.target.running, 1, 'the old version still takes requests');
    h.starts[0]?.target.complete(0);
    await settle(2);
    assert.ok(inFlight.result !== undefined);

    // The cause is gone: the next reload succeeds and supersedes the failure.
    await touch(dir, 1, 2_000_000);
    const v1b = await h.loadServing();
    assert.notEqual(v1b, v1);
    assert.equal(h.serving(), v1b);
    assert.deepEqual(h.rows(), ['1:READY:']);
  });

  void it('refuses a model the repositories do not hold without making an entry for it', async () => {
    const h = await harness();
    await assert.rejects(h.manager.load('absent', undefined), {
      code: 'MODEL_NOT_FOUND',
      message: "failed to load 'absent', model not found in any model repository",
    });
    assert.equal(h.manager.registry.entry('absent'), undefined);
    assert.equal(h.starts.length, 0);
    await assert.rejects(h.manager.unload('absent'), { code: 'MODEL_NOT_FOUND' });
  });

  void it('refuses load and unload calls outside explicit mode', async () => {
    const h = await harness(['m'], 'none');
    await assert.rejects(soon(h.manager.load('m', undefined), 'load'), {
      code: 'MODEL_CONTROL_DISABLED',
    });
    await assert.rejects(soon(h.manager.unload('m'), 'unload'), {
      code: 'MODEL_CONTROL_DISABLED',
    });
    assert.equal(h.starts.length, 0);
  });
});

void describe('ModelManager: replacement', () => {
  void it('switches a reload only when the new version is ready, and answers before the old one drains', async () => {
    const h = await harness();
    const v1 = await h.loadServing();
    const oldTarget = h.starts[0]?.target;
    const inFlight = recorder(v1.scheduler).send(request());
    await flush();
    assert.equal(oldTarget?.running, 1);

    await writeVersion(path.join(h.repo, 'm'), 2); // default policy: latest 1, so 2 replaces 1
    let answered = false;
    const reloading = h.manager.load('m', undefined).then(() => {
      answered = true;
    });
    const s2 = await h.start(2);
    assert.equal(s2.version, 2);
    await settle();
    assert.equal(answered, false, 'the load call waits for the new version');
    assert.equal(h.serving(), v1, 'requests resolve against the old version meanwhile');
    assert.deepEqual(h.rows(), ['1:READY:', '2:LOADING:']);

    const v2 = s2.succeed();
    await soon(reloading, 'the load, with the old version still draining,');
    assert.equal(h.serving(), v2, 'new requests go to the new version from the switch');
    assert.equal(inFlight.result, undefined, 'the load answered while the old version drains');
    assert.deepEqual(h.rows(), ['1:UNLOADING:', '2:READY:']);
    assert.deepEqual(h.manager.leavingSchedulers(), [v1.scheduler]);

    // The model's next operation waits for that drain.
    let unloaded = false;
    const unloading = h.manager.unload('m').then(() => {
      unloaded = true;
    });
    await settle();
    assert.equal(unloaded, false);
    assert.equal(h.entry().state, 'READY', 'the unload has not begun: the old version drains');
    oldTarget?.complete(0);
    await unloading;
    assert.ok(
      inFlight.result !== undefined,
      'the request in flight on the old version was answered',
    );
    assert.equal(inFlight.error, undefined);
    assert.deepEqual(h.rows(), ['1:UNAVAILABLE:unloaded', '2:UNAVAILABLE:unloaded']);
  });

  void it('runs a load asked during another load of the model after it, against the repository as it is then', async () => {
    const h = await harness();
    const dir = path.join(h.repo, 'm');
    const first = h.manager.load('m', undefined);
    const s1 = await h.start(1);
    await writeVersion(dir, 2); // the repository changes while the first load runs
    const second = h.manager.load('m', undefined);
    await settle();
    assert.equal(h.starts.length, 1, 'the second load waits for the first');
    assert.deepEqual(h.rows(), ['1:LOADING:']);

    const v1 = s1.succeed();
    await first;
    assert.equal(h.serving(), v1, 'the first load serves what it planned');
    const s2 = await h.start(2);
    assert.equal(s2.version, 2, 'the second load plans from the repository as it is now');
    const v2 = s2.succeed();
    await second;
    assert.equal(h.serving(), v2, 'the later load wins');
    assert.deepEqual([...h.entry().versions.keys()], [2]);
  });

  void it('makes a second load of an unchanged model a no-op, and retries after a failed one', async () => {
    const h = await harness();
    const first = h.manager.load('m', undefined);
    const again = h.manager.load('m', undefined);
    const s1 = await h.start(1);
    s1.fail(fail('MODEL_LOAD_FAILED', 'out of memory'));
    await assert.rejects(first, { message: "failed to load 'm', out of memory" });
    // The queued load runs after the failure and tries again.
    const s2 = await h.start(2);
    assert.equal(h.entry().state, 'UNAVAILABLE');
    const v = s2.succeed();
    await again;
    assert.equal(h.serving(), v);
    assert.deepEqual(h.rows(), ['1:READY:']);

    const third = h.manager.load('m', undefined);
    const fourth = h.manager.load('m', undefined);
    await Promise.all([third, fourth]);
    assert.equal(h.starts.length, 2, 'loads of a model that changed nothing start nothing');
    assert.equal(h.serving(), v);
  });
});

void describe('ModelManager: unload and the order of operations', () => {
  void it('unloads with a request in flight: new requests refused at once, the unload waits for it', async () => {
    const h = await harness();
    const v1 = await h.loadServing();
    const target = h.starts[0]?.target;
    const inFlight = recorder(v1.scheduler).send(request());
    await flush();

    let unloaded = false;
    const unloading = h.manager.unload('m').then(() => {
      unloaded = true;
    });
    await settle();
    assert.equal(h.entry().state, 'UNLOADING');
    throwsCode(() => h.serving(), 'MODEL_NOT_READY');
    assert.equal(unloaded, false, 'the unload waits for the request in flight');
    assert.equal(inFlight.result, undefined);
    assert.equal(inFlight.error, undefined, 'the request in flight is not failed');

    // A load asked meanwhile runs once the unload is through.
    const reloading = h.manager.load('m', undefined);
    await settle();
    assert.equal(h.starts.length, 1, 'the load waits for the unload');

    target?.complete(0);
    await unloading;
    assert.ok(inFlight.result !== undefined, 'the request in flight completed');
    assert.equal(h.entry().state, 'UNAVAILABLE');
    assert.equal(h.entry().reason, 'unloaded');
    const again = (await h.start(2)).succeed();
    await reloading;
    assert.notEqual(again, v1);
    assert.equal(h.serving(), again);
  });

  void it('runs load, unload, load asked together in that order', async () => {
    const h = await harness();
    const { order, all } = trackOrder([
      ['load 1', h.manager.load('m', undefined)],
      ['unload', h.manager.unload('m')],
      ['load 2', h.manager.load('m', undefined)],
    ]);
    const first = (await h.start(1)).succeed();
    // In order, the second load starts the model again; out of order it may start nothing.
    const next = await Promise.race([h.start(2), all.then(() => undefined)]);
    const second = next?.succeed();
    await all;
    assert.deepEqual(order, ['load 1', 'unload', 'load 2']);
    assert.ok(second !== undefined, 'the second load started a version');
    assert.notEqual(second, first, 'the unload stopped the first version; the second load started');
    assert.equal(h.serving(), second);
    await assert.rejects(first.scheduler.enqueue(request()), { code: 'SHUTTING_DOWN' });
  });

  void it('runs operations on two models independently', async () => {
    const h = await harness(['a', 'b']);
    const loadingA = h.manager.load('a', undefined);
    const startA = await h.start(1);
    assert.equal(startA.model, 'a');

    // a's load hangs; b loads, serves and unloads meanwhile.
    const vb = await h.loadServing('b');
    assert.equal(h.starts[1]?.model, 'b');
    assert.equal(h.serving('b'), vb);
    assert.equal(h.entry('a').state, 'LOADING');
    await h.manager.unload('b');
    assert.equal(h.entry('b').state, 'UNAVAILABLE');
    assert.equal(h.entry('a').state, 'LOADING');

    const va = startA.succeed();
    await loadingA;
    assert.equal(h.serving('a'), va);
    throwsCode(() => h.serving('b'), 'MODEL_NOT_READY');
  });

  void it('closes after the load in flight: later calls are refused, then every model unloads', async () => {
    const h = await harness();
    const loading = h.manager.load('m', undefined);
    const s = await h.start(1);
    let closed = false;
    const closing = h.manager.close().then(() => {
      closed = true;
    });
    await assert.rejects(soon(h.manager.load('m', undefined), 'load'), { code: 'SHUTTING_DOWN' });
    await assert.rejects(soon(h.manager.unload('m'), 'unload'), { code: 'SHUTTING_DOWN' });
    await settle();
    assert.equal(closed, false, 'close waits for the load in flight');
    const v = s.succeed();
    await loading;
    await closing;
    assert.equal(h.entry().state, 'UNAVAILABLE');
    assert.equal(h.entry().reason, 'unloaded');
    await assert.rejects(v.scheduler.enqueue(request()), { code: 'SHUTTING_DOWN' });
    assert.equal(h.starts.length, 1);
  });
});
