// The piscina worker for one instance of a JavaScript model (`backend: "javascript"`): imports the
// model's module and calls its initialize(args) at module load (top-level await, so piscina does
// not mark the thread ready before the model is), runs the warmup requests, then serves RunRequest
// -> RunResponse one at a time through the model's execute(requests), and calls its finalize()
// when the pool asks (FINALIZE_TASK) before the pool is destroyed. Nothing is thrown across the
// boundary: every failure is a `{ok: false, error}` reply, with file paths scrubbed out.
//
// Unlike the ORT worker, this one may be terminated in the middle of a run: that is how the pool
// stops an execute() that outlived `execute_timeout_ms` (model-instance.ts).

import path from 'node:path';
import { MessageChannel, parentPort, threadId, workerData } from 'node:worker_threads';
import type { WireError } from '../src/errors.js';
import { BlsClient } from '../src/execution/javascript/bls-client.js';
import {
  isMainToWorker,
  type ChannelOpened,
  type WorkerToMain,
} from '../src/execution/javascript/channel-messages.js';
import { importModel, type JsModel } from '../src/execution/javascript/js-model-module.js';
import { runJsModel, type RunContext } from '../src/execution/javascript/js-run.js';
import type { JavascriptWorkerInit } from '../src/execution/javascript/js-worker-init.js';
import type { JavascriptWorkerData } from '../src/execution/javascript/js-workers.js';
import type { RunRequest, RunResponse, WorkerEvent } from '../src/execution/messages.js';
import { toWireError } from '../src/execution/worker-errors.js';
import { collectGarbage } from '../src/memory/collect-garbage.js';
import { workerReadings } from '../src/execution/worker-readings.js';

if (parentPort === null) throw new Error('js-worker must run as a piscina worker thread');

const port = parentPort;
const init = workerData as JavascriptWorkerData;
const js: JavascriptWorkerInit = javascriptPart(init);
const instanceName = init.instanceName ?? init.instance;
// What a client may see instead of the absolute model path: `<model>/<version>/<file>`.
const scrub = {
  modelPath: init.modelPath,
  displayPath: `${init.model}/${init.version}/${path.basename(init.modelPath)}`,
};

type Loaded = { readonly ctx: RunContext } | { readonly error: WireError };

// The instance channel (channel-messages.ts): BLS calls and a decoupled model's responses go out on
// it, BLS answers come back. Its main-side end is handed over before the model is imported, so
// initialize() may already call other models. Unref'd: piscina's own port keeps the thread alive.
const channel = new MessageChannel();
const toMain = (m: WorkerToMain): void => channel.port1.postMessage(m);
const bls = new BlsClient(toMain);
channel.port1.on('message', (m: unknown) => {
  if (isMainToWorker(m)) bls.receive(m);
});
channel.port1.unref();
const opened: ChannelOpened = { type: 'infernode:channel', threadId, port: channel.port2 };
port.postMessage(opened, [channel.port2]);

function javascriptPart(w: JavascriptWorkerData): JavascriptWorkerInit {
  // The JavaScript backend's workerData always has it (js-workers.ts).
  if (w.javascript === undefined) throw new Error('js-worker needs its javascript workerData'); // a bug
  return w.javascript;
}

function report(event: WorkerEvent): void {
  port.postMessage(event);
}

function failed(error: WireError): Loaded {
  report({ type: 'infernode:session-failed', threadId, instance: init.instance, error });
  return { error };
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Imports the module, calls initialize(args), runs the warmup; the first failure fails the load. */
async function load(): Promise<Loaded> {
  const start = process.hrtime.bigint();
  let model: JsModel;
  try {
    model = await importModel(init.modelPath, scrub.displayPath);
  } catch (e) {
    return failed(toWireError(e, 'MODEL_LOAD_FAILED', scrub));
  }
  try {
    await model.initialize({
      model_config: js.modelConfig,
      model_name: init.model,
      model_version: init.version,
      model_instance_name: instanceName,
      model_instance_kind: 'CPU',
      model_instance_device_id: 0,
      model_repository: js.modelDir,
      ...bls.functions(),
    });
  } catch (e) {
    const error = new Error(`initialize() of ${scrub.displayPath} threw: ${describe(e)}`);
    return failed(toWireError(error, 'MODEL_LOAD_FAILED', scrub));
  }
  const ctx: RunContext = {
    model,
    rules: { outputs: js.outputs, batched: js.batched },
    label: `model "${init.model}" version ${init.version}`,
    scrub,
    context: bls.functions(),
    ...(js.decoupled && { decoupled: { post: toMain } }),
  };
  const warmupStart = process.hrtime.bigint();
  let warmupRuns = 0;
  for (const w of init.warmup ?? []) {
    for (let i = 0; i < w.count; i++) {
      const r = await runJsModel(ctx, w.request);
      if (!r.ok) {
        const message = `warmup "${w.name}" failed: ${r.error.message}`;
        return failed({ code: 'MODEL_LOAD_FAILED', message });
      }
      warmupRuns++;
    }
  }
  const warmupNs = Number(process.hrtime.bigint() - warmupStart);
  report({
    type: 'infernode:session-ready',
    threadId,
    instance: init.instance,
    // There is no model file to describe its own inputs and outputs: the config is the contract.
    io: { inputs: [], outputs: [] },
    loadNs: Number(process.hrtime.bigint() - start),
    warmupRuns,
    warmupNs,
  });
  return { ctx };
}

const loaded = await load();
/** Posts this worker's heap when a reading is due (execution/worker-readings.ts); first one now. */
const readingDue = workerReadings(init.readingsTick, (m) => port.postMessage(m));
readingDue();

/** The pool's first task for every worker (STARTED_TASK in messages.ts): makes piscina start it. */
export function started(): boolean {
  return 'ctx' in loaded;
}

/** FINALIZE_TASK: the model's finalize(), once, before the pool is destroyed. Never throws. */
export async function finalize(): Promise<{ ok: true } | { ok: false; error: WireError }> {
  if (!('ctx' in loaded)) return { ok: true };
  try {
    await loaded.ctx.model.finalize();
    return { ok: true };
  } catch (e) {
    const error = new Error(`finalize() of ${scrub.displayPath} threw: ${describe(e)}`);
    return { ok: false, error: toWireError(error, 'MODEL_EXECUTE_FAILED', scrub) };
  }
}

/**
 * RECLAIM_TASK (messages.ts), sent after a large run: collect this worker's garbage (the views and
 * copies of a large batch), since an idle worker waits in Atomics.wait, where V8 schedules no GC.
 */
export function reclaim(): void {
  collectGarbage();
}

/** The piscina task handler. */
export default function run(req: RunRequest): Promise<RunResponse> {
  if ('error' in loaded) return Promise.resolve({ ok: false, error: loaded.error });
  return runJsModel(loaded.ctx, req).then((response) => {
    readingDue();
    return response;
  });
}
