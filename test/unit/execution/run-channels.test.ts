// The backends' run channels (run-channel.ts) against a fake piscina: what each hands to the worker
// for a run and a reclaim, and, for JavaScript workers, the instance channel's part — runs are
// numbered once the worker's port has arrived, and a decoupled run ends only with every final flag.

import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { describe, it } from 'node:test';
import type { Piscina } from 'piscina';
import { javascriptWorkers } from '../../../src/execution/javascript/js-workers.js';
import {
  RECLAIM_TASK,
  type RunRequest,
  type RunResponse,
} from '../../../src/execution/messages.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import { providerInventory } from '../../../src/execution/onnxruntime/provider-availability.js';
import { CPU_PLAN } from '../../helpers/cpu-session-plan.js';

const OK: RunResponse = { ok: true, outputs: [], timing: { inputNs: 0, inferNs: 0, outputNs: 0 } };
const REQ: RunRequest = { inputs: [], outputs: [], members: [1, 1] };

/** A piscina that records each run and answers it with OK. */
function fakePiscina() {
  const calls: Array<{ task: unknown; options: unknown }> = [];
  const piscina = {
    run: (task: unknown, options?: unknown) => {
      calls.push({ task, options });
      return Promise.resolve(OK);
    },
  } as unknown as Piscina;
  return { piscina, calls };
}

const JS_OPTIONS = {
  worker: { modelConfig: {}, modelDir: '/m', batched: true, outputs: [], decoupled: true },
  executeTimeoutMs: 1000,
  initializeTimeoutMs: 2000,
  decoupled: true,
  bls: undefined,
};

void describe('ONNX Runtime workerData', () => {
  void it("adds its group's session plan to the common fields; checks providers first", () => {
    const backend = ortWorkers({ workerFile: '/w.js' });
    const common = {
      model: 'm',
      version: 1,
      instance: 'm_0',
      modelPath: '/m/1/model.onnx',
      sabTensors: false,
    };
    const plan = CPU_PLAN;
    const group = { instance: 'm_0', count: 1, plan };
    assert.deepEqual(backend.workerData(common, group), { ...common, plan });
    assert.doesNotThrow(() => backend.checkGroups([group]));
    const cuda = {
      ...plan,
      executionProviders: [{ name: 'cuda', options: {}, deviceId: 0 } as const],
    };
    const check = () => backend.checkGroups([{ ...group, plan: cuda }]);
    // Where the binding has CUDA (a GPU host) the check passes; elsewhere it refuses the start.
    if (providerInventory().installed.has('cuda')) assert.doesNotThrow(check);
    else
      assert.throws(
        check,
        (e: unknown) => (e as { code?: string }).code === 'PROVIDER_UNAVAILABLE',
      );
  });
});

void describe('ONNX Runtime run channel (doorbell off)', () => {
  void it('hands each run to piscina as it is, and a reclaim as RECLAIM_TASK', async () => {
    const backend = ortWorkers({ workerFile: '/w.js', doorbell: false });
    assert.equal(backend.limits, undefined);
    assert.equal(backend.finalizes, false);
    assert.equal(backend.inputsFreeAfterRun, true);
    const { piscina, calls } = fakePiscina();
    const channel = backend.openChannel(piscina, 'here');
    assert.equal(channel.take({ type: 'infernode:channel', threadId: 1 }, 1), false);
    channel.sessionReady();
    const buffer = new ArrayBuffer(8);
    const run = channel.run(REQ, 7, undefined, [buffer]);
    assert.deepEqual(await run.task, OK);
    run.done();
    assert.deepEqual(calls[0], { task: REQ, options: { transferList: [buffer] } });
    await channel.reclaim();
    assert.deepEqual(calls[1], { task: null, options: { name: RECLAIM_TASK } });
    await channel.stop('unloaded');
  });
});

void describe('JavaScript run channel', () => {
  void it('adds its workerData (no ORT field) and limits, and finalizes', () => {
    const backend = javascriptWorkers(JS_OPTIONS);
    const common = {
      model: 'm',
      version: 1,
      instance: 'm_0',
      modelPath: '/m/1/model.js',
      sabTensors: false,
    };
    const data = backend.workerData(common, { instance: 'm_0', count: 2 });
    assert.deepEqual(data, { ...common, javascript: JS_OPTIONS.worker });
    assert.equal('plan' in data, false);
    assert.doesNotThrow(() => backend.checkGroups([{ instance: 'm_0', count: 2 }]));
    assert.deepEqual(backend.limits, { startMs: 2000, runMs: 1000 });
    assert.equal(backend.finalizes, true);
    assert.equal(backend.inputsFreeAfterRun, false);
  });

  void it('numbers runs once the port arrives; a decoupled run waits for every final', async () => {
    const { piscina, calls } = fakePiscina();
    const channel = javascriptWorkers(JS_OPTIONS).openChannel(piscina, 'here');
    // Before the worker's port: the run goes as it is.
    const early = channel.run(REQ, 1, undefined, undefined);
    assert.deepEqual(await early.task, OK);
    early.done();
    assert.deepEqual(calls[0], { task: REQ, options: undefined });

    const { port1, port2 } = new MessageChannel();
    const opened = { type: 'infernode:channel', threadId: 5, port: port2 };
    assert.equal(channel.take(opened, 4), false, 'another worker');
    assert.equal(channel.take(opened, 5), true);
    // The instance channel unrefs its port (the worker keeps the process alive); here nothing would.
    port2.ref();
    const run = channel.run(REQ, 2, undefined, undefined);
    assert.deepEqual(calls[1], { task: { ...REQ, run: 2 }, options: undefined });
    let settled = false;
    const task = run.task.then((r) => {
      settled = true;
      return r;
    });
    port1.postMessage({ type: 'final', run: 2, member: 0 });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(settled, false, 'one of two finals');
    port1.postMessage({ type: 'final', run: 2, member: 1 });
    assert.deepEqual(await task, OK);
    run.done();
    channel.close('done');
    port1.close();
  });
});
