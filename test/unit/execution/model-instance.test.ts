// The instance supervisor (model-instance.ts, through its pool) with real worker threads and a
// manual clock: a tiny worker (fixtures/supervised-worker.ts) that reports ready or dies as the test
// says, in the ONNX Runtime backend's piscina-task hand-off. A worker lost during a run fails that
// run with WORKER_FAILED and is replaced at once; further consecutive losses wait out a back-off
// that doubles up to its cap and never ends early (time moves only when the test advances it); a
// worker that answered or stayed up a minute resets the count; close() during a pending restart
// starts no worker.

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { InstancePool } from '../../../src/execution/instance-pool.js';
import type { RunRequest, RunResponse, WorkerInit } from '../../../src/execution/messages.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import type { InstanceGroupPlan } from '../../../src/execution/onnxruntime/session-plan.js';
import { RESTART_MAX_DELAY_MS, RESTART_STABLE_MS } from '../../../src/execution/restart-backoff.js';
import type { WorkerBackend } from '../../../src/execution/run-channel.js';
import { flush } from '../scheduler/fixtures.js';
import { ManualClock } from '../scheduler/manual-clock.js';
import {
  CONTROL_SLOTS,
  EXIT_OUTPUT,
  START,
  START_EXIT,
  START_READY,
  STARTS,
} from './fixtures/supervised-control.js';
import { CPU_PLAN } from '../../helpers/cpu-session-plan.js';

const WORKER = fileURLToPath(new URL('./fixtures/supervised-worker.js', import.meta.url));

/** The worker opens no session: any CPU plan does. */
const PLAN = CPU_PLAN;

const RUN: RunRequest = { inputs: [], outputs: [] };
/** A run during which the worker's thread exits (code 3). */
const EXIT_RUN: RunRequest = { inputs: [], outputs: [EXIT_OUTPUT] };
const OK: RunResponse = { ok: true, outputs: [], timing: { inputNs: 0, inferNs: 0, outputNs: 0 } };

const ms = (n: number): number => n * 1e6;

/** A pool of one instance of the fixture worker on a manual clock, and what it logs. */
async function harness() {
  const control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4));
  const clock = new ManualClock();
  const ort = ortWorkers({ workerFile: WORKER, doorbell: false });
  const backend: WorkerBackend<InstanceGroupPlan> = {
    ...ort,
    workerData: (common, group) =>
      ({ ...ort.workerData(common, group), control: control.buffer }) as WorkerInit,
  };
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const record = (line: string): void => {
    lines.push(line);
    for (const w of waiters.splice(0)) w();
  };
  const pool = await InstancePool.start({
    model: 'm',
    version: 1,
    modelPath: '/nowhere/m/1/model.onnx',
    groups: [{ instance: 'm_0', count: 1, plan: PLAN }],
    sabTensors: false,
    backend,
    logger: { info: record, warn: record, error: record },
    clock,
  });
  let restarts = 0;
  pool.onInstanceRestart(() => restarts++);

  /**
   * The log line of the instance's `n`th lost worker (counting from 1), once it is lost. Each loss
   * is logged once, saying whether the replacement starts at once or after how long.
   */
  async function loss(n: number): Promise<string> {
    for (;;) {
      const losses = lines.filter((l) => LOSS.test(l));
      if (losses.length >= n) return losses[n - 1] as string;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  }
  return {
    pool,
    clock,
    loss,
    /** Workers that have started (each counts itself as its module loads). */
    started: () => Atomics.load(control, STARTS),
    /** What workers started from now on do as they start. */
    onStart: (what: number) => Atomics.store(control, START, what),
    restarts: () => restarts,
  };
}

const LOSS = /^model "m" v1: instance m_0 died /;
const AT_ONCE = /; starting a replacement$/;
const DIED_IN_RUN = 'died during a request (exit code 3)';

/** The MODEL_NOT_READY answer of a pool whose only instance waits out its back-off. */
function notReady(remaining: string, failures: number): RunResponse {
  return {
    ok: false,
    error: {
      code: 'MODEL_NOT_READY',
      message:
        'model "m" version 1 is not ready: no instance is running (instance m_0: its worker died ' +
        `while starting (exit code 4)); it is being restarted (next attempt in ${remaining} s, ` +
        `after ${failures} consecutive failures)`,
    },
  };
}

void describe('ModelInstance: a worker lost during a run', () => {
  void it('fails the run with WORKER_FAILED and replaces the worker at once after a first loss', async () => {
    const h = await harness();
    assert.deepEqual(await h.pool.run(RUN), OK);
    assert.deepEqual(await h.pool.run(EXIT_RUN), {
      ok: false,
      error: {
        code: 'WORKER_FAILED',
        message:
          'instance m_0 of model "m" version 1 exited during the request (exit code 3); ' +
          'it is being replaced',
      },
    });
    assert.equal(
      await h.loss(1),
      'model "m" v1: instance m_0 died during a request (exit code 3); starting a replacement',
    );
    assert.equal(h.clock.pendingTimers, 0, 'no back-off after a first loss');
    await h.pool.whenReady();
    assert.equal(h.restarts(), 1);
    assert.equal(h.started(), 2);
    assert.deepEqual(await h.pool.run(RUN), OK, 'the replacement serves');
    await h.pool.close();
  });
});

void describe('ModelInstance: restart back-off', () => {
  void it('waits out a delay that doubles with each consecutive loss, never less, up to its cap', async () => {
    const h = await harness();
    h.onStart(START_EXIT); // every replacement dies as it starts
    assert.equal((await h.pool.run(EXIT_RUN)).ok, false);
    // Loss 1 is replaced at once; that replacement dies, and so does each after it. The delays
    // after losses 2 to 10: doubling from 250 ms, then capped.
    const expected = [250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000];
    for (let failures = 2; failures <= 10; failures++) {
      const delay = expected[failures - 2] as number;
      assert.equal(
        await h.loss(failures),
        'model "m" v1: instance m_0 died while starting (exit code 4); ' +
          `next attempt in ${(delay / 1000).toFixed(2)} s`,
      );
      assert.equal(h.pool.ready, false);
      assert.deepEqual(await h.pool.run(RUN), notReady((delay / 1000).toFixed(2), failures));

      const startedBefore = h.started();
      const restartsBefore = h.restarts();
      h.clock.advance(ms(delay - 1));
      await flush();
      assert.equal(h.clock.pendingTimers, 1, `failure ${failures}: still waiting 1 ms early`);
      assert.equal(h.restarts(), restartsBefore, 'no worker starts before the delay is over');
      assert.deepEqual(await h.pool.run(RUN), notReady('0.00', failures));

      // After the last delay the cause has gone: that worker starts and stays.
      if (failures === 10) h.onStart(START_READY);
      h.clock.advance(ms(1));
      assert.equal(h.clock.pendingTimers, 0);
      if (failures < 10) {
        await h.loss(failures + 1); // the next worker started, and died
        assert.equal(h.restarts(), restartsBefore + 1);
        assert.equal(h.started(), startedBefore + 1);
      }
    }
    await h.pool.whenReady();
    assert.deepEqual(await h.pool.run(RUN), OK);
    await h.pool.close();
  });

  void it('starts the count again after a worker that answered, or stayed up a minute', async () => {
    const h = await harness();
    const atOnce = `model "m" v1: instance m_0 ${DIED_IN_RUN}; starting a replacement`;
    const later = `model "m" v1: instance m_0 ${DIED_IN_RUN}; next attempt in 0.25 s`;
    // Lost without answering, twice in a row: the second loss waits out the first delay.
    assert.equal((await h.pool.run(EXIT_RUN)).ok, false);
    assert.equal(await h.loss(1), atOnce);
    await h.pool.whenReady();
    assert.equal((await h.pool.run(EXIT_RUN)).ok, false);
    assert.equal(await h.loss(2), later);
    h.clock.advance(ms(250));
    await h.pool.whenReady();

    // This worker stays up a minute (on the clock) without answering: its loss is replaced at once.
    h.clock.advance(ms(RESTART_STABLE_MS));
    assert.equal((await h.pool.run(EXIT_RUN)).ok, false);
    assert.equal(await h.loss(3), atOnce);
    assert.equal(h.clock.pendingTimers, 0);
    await h.pool.whenReady();

    // A loss right after is consecutive; a worker that answered a run resets the count again.
    assert.equal((await h.pool.run(EXIT_RUN)).ok, false);
    assert.equal(await h.loss(4), later);
    h.clock.advance(ms(250));
    await h.pool.whenReady();
    assert.deepEqual(await h.pool.run(RUN), OK);
    assert.equal((await h.pool.run(EXIT_RUN)).ok, false);
    assert.equal(await h.loss(5), atOnce);
    assert.equal(h.clock.pendingTimers, 0);
    await h.pool.whenReady();
    assert.equal(h.restarts(), 5);
    await h.pool.close();
  });

  void it('starts no worker when the pool closes during a pending restart', async () => {
    const h = await harness();
    h.onStart(START_EXIT);
    assert.equal((await h.pool.run(EXIT_RUN)).ok, false);
    assert.doesNotMatch(await h.loss(2), AT_ONCE, 'the second loss waits out a back-off');
    assert.equal(h.clock.pendingTimers, 1);
    const started = h.started();
    const restarts = h.restarts();

    h.onStart(START_READY);
    await h.pool.close();
    assert.equal(h.clock.pendingTimers, 0, 'the pending restart was cancelled');
    h.clock.advance(ms(RESTART_MAX_DELAY_MS));
    await flush();
    assert.equal(h.restarts(), restarts);
    assert.equal(h.started(), started, 'no worker started after close');
    assert.deepEqual(await h.pool.run(RUN), {
      ok: false,
      error: { code: 'MODEL_NOT_READY', message: 'model "m" version 1 is unloading' },
    });
  });
});
