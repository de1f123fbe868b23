// The piscina worker for one model instance: creates its ORT InferenceSession at module load (top-
// level await, so piscina does not mark the thread ready before the session exists), then serves
// RunRequest -> RunResponse one at a time. Nothing is ever thrown across the boundary: every
// failure is a `{ok: false, error: {code, message}}` reply, with file paths scrubbed out.

import path from 'node:path';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { metadataToModelIO, type ModelIO } from '../src/config/read-model-io.js';
import { datatypeInfo, fromOrtType } from '../src/tensor/datatypes.js';
import type { Datatype, NumericView, OrtType } from '../src/tensor/datatypes.js';
import { fail } from '../src/errors.js';
import type { WireError } from '../src/errors.js';
import type { RunRequest, RunResponse, RunTiming, WorkerEvent } from '../src/execution/messages.js';
import { DeviceLock } from '../src/execution/onnxruntime/device-lock.js';
import { serveDoorbell, type DoorbellInit } from '../src/execution/onnxruntime/doorbell.js';
import { pinFloat16ToUint16 } from '../src/execution/onnxruntime/float16-compat.js';
import { sessionOptionsFromPlan } from '../src/execution/onnxruntime/session-options.js';
import { setOrtEnvLogLevel } from '../src/execution/onnxruntime/ort-log-level.js';
import type { OrtWorkerInit } from '../src/execution/onnxruntime/session-plan.js';
import { SectionRecorder } from '../src/execution/onnxruntime/test-gpu-target.js';
import { explainWebGpuFailure } from '../src/execution/onnxruntime/webgpu-diagnosis.js';
import {
  decodeStringElements,
  encodedStringsByteLength,
  encodeStringElements,
} from '../src/execution/onnxruntime/string-tensor.js';
import { toWireError } from '../src/execution/worker-errors.js';
import {
  checkOutputFits,
  writeIntoRegion,
  type RegionWrite,
} from '../src/shared-memory/region-write.js';
import { slotOffsets } from '../src/memory/byte-size.js';
import { collectGarbage } from '../src/memory/collect-garbage.js';
import { MOVE_MIN_BYTES } from '../src/memory/movable-buffers.js';
import { LARGE_GARBAGE_BYTES } from '../src/memory/reclaim-after-large.js';
import { movedReply, type MovedReply } from '../src/execution/moved-reply.js';
import { workerReadings } from '../src/execution/worker-readings.js';
import { TensorBlock } from '../src/memory/tensor-block.js';
import type { SlotSpec } from '../src/memory/tensor-block.js';
import { byteView, typedView, typedViewOf } from '../src/memory/views.js';
import type { TensorDescriptor } from '../src/tensor/tensor.js';
import { elementCount } from '../src/tensor/shape.js';

if (parentPort === null) throw new Error('ort-worker must run as a piscina worker thread');
pinFloat16ToUint16(Tensor);

const port = parentPort;
const init = workerData as OrtWorkerInit;
// What a client may see instead of the absolute model path: `<model>/<version>/<file>`.
const scrub = {
  modelPath: init.modelPath,
  displayPath: `${init.model}/${init.version}/${path.basename(init.modelPath)}`,
};

type Loaded = { readonly session: InferenceSession } | { readonly error: WireError };

/** A GPU instance's device lock (WebGPU), and the test-only stand-in's recorder when it is on. */
const lock = init.gpuLock === undefined ? undefined : new DeviceLock(init.gpuLock.buffer);
const recorder =
  init.gpuLock?.standInRecord === undefined
    ? undefined
    : new SectionRecorder(init.gpuLock.standInRecord, threadId, init.gpuLock.deviceId);

/** Runs `section` (session creation, a run, the release) holding the device's lock, if any. */
function onDevice<T>(what: string, section: () => Promise<T>): Promise<T> {
  if (lock === undefined) return section();
  return lock.hold(() => (recorder === undefined ? section() : recorder.record(what, section)));
}

function report(event: WorkerEvent): void {
  port.postMessage(event);
}

function failed(error: WireError): Loaded {
  report({ type: 'infernode:session-failed', threadId, instance: init.instance, error });
  return { error };
}

/** Creates the session, then runs the warmup requests; the first failure fails the load. */
async function load(): Promise<Loaded> {
  const start = process.hrtime.bigint();
  let session: InferenceSession;
  try {
    // Before this thread's first session: onnxruntime-node reads the env level then (and only then).
    if (init.logSeverity !== undefined) setOrtEnvLogLevel(init.logSeverity);
    const options = sessionOptionsFromPlan(init.plan, `${init.model}/${init.instance}`, {
      gpuStandIn: recorder !== undefined,
      ...(init.logSeverity !== undefined && { logSeverity: init.logSeverity }),
    });
    session = await onDevice('create', () => InferenceSession.create(init.modelPath, options));
  } catch (e) {
    const error = toWireError(e, 'MODEL_LOAD_FAILED', scrub);
    // WebGPU's own message ("No supported adapters") does not say what is missing: find out.
    const explained = lock === undefined ? undefined : explainWebGpuFailure(error.message);
    return failed(explained === undefined ? error : { ...error, message: explained });
  }
  const warmupStart = process.hrtime.bigint();
  let warmupRuns = 0;
  for (const w of init.warmup ?? []) {
    for (let i = 0; i < w.count; i++) {
      const r = (await execute(session, w.request)).response;
      if (!r.ok) {
        const message = `warmup "${w.name}" failed: ${r.error.message}`;
        return failed({ code: 'MODEL_LOAD_FAILED', message });
      }
      warmupRuns++;
    }
  }
  const warmupNs = Number(process.hrtime.bigint() - warmupStart);
  let io: ModelIO;
  try {
    io = metadataToModelIO(session.inputMetadata, session.outputMetadata, `model "${init.model}"`);
  } catch (e) {
    return failed(toWireError(e, 'MODEL_LOAD_FAILED', scrub));
  }
  const loadNs = Number(process.hrtime.bigint() - start);
  report({
    type: 'infernode:session-ready',
    threadId,
    instance: init.instance,
    io,
    loadNs,
    warmupRuns,
    warmupNs,
  });
  return { session };
}

/**
 * Worker-local memory for the copy path (inputs must not be SharedArrayBuffer views where the
 * binding rejects them). Grown geometrically and reused: a request costs a memcpy, not an allocation.
 * Safe to reuse because piscina gives this worker one task at a time and ORT holds input memory only
 * during session.run. Capped: inputs larger than SCRATCH_MAX_BYTES get a buffer of their own that is
 * garbage after the run, so one large request does not pin its size in every worker for good.
 */
const SCRATCH_INITIAL_BYTES = 64 * 1024;
const SCRATCH_MAX_BYTES = LARGE_GARBAGE_BYTES;
let scratch = new ArrayBuffer(SCRATCH_INITIAL_BYTES);

function scratchOf(bytes: number): ArrayBuffer {
  if (bytes > SCRATCH_MAX_BYTES) return new ArrayBuffer(bytes);
  if (scratch.byteLength < bytes) {
    scratch = new ArrayBuffer(Math.min(Math.max(bytes, scratch.byteLength * 2), SCRATCH_MAX_BYTES));
  }
  return scratch;
}

function ortTypeOf(d: TensorDescriptor): OrtType {
  const ort = datatypeInfo(d.datatype).ort;
  if (ort === null) {
    throw fail('UNSUPPORTED', `input "${d.name}": ONNX Runtime has no ${d.datatype} tensors`);
  }
  return ort;
}

function buildFeeds(inputs: readonly TensorDescriptor[]): Record<string, Tensor> {
  const feeds: Record<string, Tensor> = {};
  const numeric = inputs.filter((d) => d.datatype !== 'BYTES');
  // Validate every numeric input against its shape first (typedView throws BYTE_SIZE_MISMATCH).
  const views = numeric.map(typedView);
  let data: NumericView[] = views;
  // Moved inputs (an ArrayBuffer transferred to this worker) are ours already: no copy on any Node.
  if (!init.sabTensors && numeric.some((d) => d.buffer instanceof SharedArrayBuffer)) {
    const { offsets, totalBytes } = slotOffsets(numeric.map((d) => d.byteLength));
    const local = scratchOf(totalBytes);
    data = numeric.map((d, i) => {
      if (!(d.buffer instanceof SharedArrayBuffer)) return views[i] as NumericView;
      const offset = offsets[i] ?? 0;
      new Uint8Array(local, offset, d.byteLength).set(byteView(d));
      return typedViewOf(local, offset, d.byteLength, d.datatype);
    });
  }
  numeric.forEach((d, i) => {
    const view = data[i];
    if (view !== undefined) feeds[d.name] = new Tensor(ortTypeOf(d), view, d.shape);
  });
  for (const d of inputs) {
    if (d.datatype !== 'BYTES') continue;
    // The binding copies strings into ORT, so decoding straight from shared memory is fine.
    const strings = decodeStringElements(byteView(d), elementCount(d.shape), d.name);
    feeds[d.name] = new Tensor('string', strings, d.shape);
  }
  return feeds;
}

interface OutputPlan {
  readonly spec: SlotSpec;
  readonly strings?: readonly string[];
  readonly bytes?: Uint8Array;
}

function planOutput(
  name: string,
  value: InferenceSession.ReturnType[string] | undefined,
): OutputPlan {
  if (value === undefined) throw fail('INTERNAL', `ONNX Runtime returned no output "${name}"`);
  const datatype: Datatype | undefined = fromOrtType(value.type);
  if (datatype === undefined) {
    throw fail(
      'UNSUPPORTED',
      `output "${name}" has ONNX Runtime type ${value.type}, which infernode cannot serve`,
    );
  }
  const shape = [...value.dims];
  if (datatype === 'BYTES') {
    const strings = value.data as string[];
    const byteLength = encodedStringsByteLength(strings);
    return { spec: { name, datatype, shape, byteLength }, strings };
  }
  const data = value.data as NumericView;
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { spec: { name, datatype, shape, byteLength: bytes.byteLength }, bytes };
}

/** A reply's output descriptors, and the buffers that move with them (none: shared memory). */
interface Outputs {
  readonly descriptors: readonly TensorDescriptor[];
  readonly transfer: readonly ArrayBuffer[];
  /** Outputs written into their clients' regions (RunRequest.regionWrites): bytes, by name. */
  readonly written?: Record<string, number>;
}

/**
 * Writes the numeric outputs `writes` names into their regions, straight from ONNX Runtime's
 * result; returns the bytes written by name. Each written output is then answered with an empty
 * descriptor (withWritten), and its buffer is garbage here. Others (BYTES) are left to the main
 * thread.
 */
function writeRegions(
  plans: readonly OutputPlan[],
  writes: readonly RegionWrite[],
): Record<string, number> | undefined {
  let written: Record<string, number> | undefined;
  for (const p of plans) {
    const target = writes.find((w) => w.output === p.spec.name);
    if (target === undefined || p.bytes === undefined) continue;
    checkOutputFits(p.spec.name, target.byteSize, p.bytes.byteLength);
    writeIntoRegion(target, p.bytes);
    (written ??= {})[p.spec.name] = p.bytes.byteLength;
  }
  return written;
}

/** Every output's descriptor in order: the written ones empty, the others from `rest` in order. */
function withWritten(
  all: readonly OutputPlan[],
  rest: readonly TensorDescriptor[],
  written: Record<string, number>,
): TensorDescriptor[] {
  let next = 0;
  return all.map((p) => {
    if (written[p.spec.name] === undefined) return rest[next++] as TensorDescriptor;
    const { name, datatype, shape } = p.spec;
    return { name, datatype, shape, buffer: new ArrayBuffer(0), byteOffset: 0, byteLength: 0 };
  });
}

/**
 * The outputs for the caller, who owns them from here. Large numeric outputs move: the buffers
 * onnxruntime-node returned (each its own ArrayBuffer) are transferred as they are, so the reply
 * costs no copy of them. Anything else is copied into ONE SharedArrayBuffer block, as small replies
 * always were (a copy of a few KiB is cheaper than a transfer's bookkeeping).
 */
function collectOutputs(
  names: readonly string[],
  results: InferenceSession.ReturnType,
  regionWrites: readonly RegionWrite[] | undefined,
): Outputs {
  const all = names.map((n) => planOutput(n, results[n]));
  const written = regionWrites === undefined ? undefined : writeRegions(all, regionWrites);
  if (written !== undefined) {
    const rest = collectOutputs(
      names.filter((n) => written[n] === undefined),
      results,
      undefined,
    );
    return { ...rest, descriptors: withWritten(all, rest.descriptors, written), written };
  }
  const plans = all;
  let numericBytes = 0;
  for (const p of plans) numericBytes += p.bytes?.byteLength ?? 0;
  if (numericBytes >= MOVE_MIN_BYTES && plans.every((p) => p.bytes !== undefined)) {
    const transfer: ArrayBuffer[] = [];
    const descriptors = plans.map((p): TensorDescriptor => {
      const bytes = p.bytes as Uint8Array;
      const buffer = bytes.buffer as ArrayBuffer;
      if (!transfer.includes(buffer)) transfer.push(buffer);
      return {
        name: p.spec.name,
        datatype: p.spec.datatype,
        shape: p.spec.shape,
        buffer,
        byteOffset: bytes.byteOffset,
        byteLength: bytes.byteLength,
      };
    });
    return { descriptors, transfer };
  }
  const block = TensorBlock.allocate(plans.map((p) => p.spec));
  plans.forEach((p, i) => {
    if (p.strings !== undefined) encodeStringElements(p.strings, block.bytes(i));
    else if (p.bytes !== undefined) block.write(i, p.bytes);
  });
  return { descriptors: block.descriptors, transfer: [] };
}

interface Executed {
  readonly response: RunResponse;
  /** Buffers the response's descriptors point into, to transfer with it. */
  readonly transfer: readonly ArrayBuffer[];
}

const failedRun = (error: WireError): Executed => ({
  response: { ok: false, error },
  transfer: [],
});

/** One run: inputs -> ORT -> outputs (moved, or in a fresh shared block). Never throws. */
async function execute(session: InferenceSession, req: RunRequest): Promise<Executed> {
  const t0 = process.hrtime.bigint();
  let feeds: Record<string, Tensor>;
  try {
    feeds = buildFeeds(req.inputs);
  } catch (e) {
    return failedRun(toWireError(e, 'INTERNAL', scrub));
  }
  const t1 = process.hrtime.bigint();
  const fetches = req.outputs.length > 0 ? req.outputs : session.outputNames;
  let results: InferenceSession.ReturnType;
  try {
    results = await onDevice('run', () => session.run(feeds, fetches));
  } catch (e) {
    return failedRun(toWireError(e, 'INFER_FAILED', scrub));
  }
  const t2 = process.hrtime.bigint();
  try {
    const outputs = collectOutputs(fetches, results, req.regionWrites);
    const t3 = process.hrtime.bigint();
    const timing: RunTiming = {
      inputNs: Number(t1 - t0),
      inferNs: Number(t2 - t1),
      outputNs: Number(t3 - t2),
      ...(req.trace === true && {
        stamps: {
          workerStartNs: Number(t0),
          runStartNs: Number(t1),
          runEndNs: Number(t2),
          workerEndNs: Number(t3),
        },
      }),
    };
    return {
      response: {
        ok: true,
        outputs: outputs.descriptors,
        timing,
        ...(outputs.written !== undefined && { written: outputs.written }),
      },
      transfer: outputs.transfer,
    };
  } catch (e) {
    return failedRun(toWireError(e, 'INTERNAL', scrub));
  }
}

// A failed load does not throw out of the module: it is reported (session-failed) and the pool
// decides (a failed start fails the model's load; a failed replacement is retried after a delay).
// Top-level await: module evaluation, and so piscina's "ready", waits for the session.
const loaded = await load();
/** Posts this worker's heap when a reading is due (execution/worker-readings.ts); first one now. */
const readingDue = workerReadings(init.readingsTick, (m) => port.postMessage(m));
readingDue();

/**
 * The pool's first task for every worker (STARTED_TASK in messages.ts). Its piscina pool has no
 * minimum thread count, so that piscina never replaces a lost worker on its own: this task is what
 * makes piscina start the thread. It runs once the module, and so the session, has loaded.
 */
export function started(): boolean {
  return 'session' in loaded;
}

/** RECLAIM_TASK (messages.ts): drop the scratch buffer and collect this worker's garbage. */
export function reclaim(): void {
  if (scratch.byteLength > SCRATCH_INITIAL_BYTES) scratch = new ArrayBuffer(SCRATCH_INITIAL_BYTES);
  collectGarbage();
}

/** RELEASE_TASK (messages.ts): frees the session before the pool is destroyed. */
export async function release(): Promise<void> {
  if ('session' in loaded) await onDevice('release', () => loaded.session.release());
}

/** The piscina task handler; moved outputs travel in the reply's transfer list. */
export default async function run(req: RunRequest): Promise<RunResponse | MovedReply> {
  if ('error' in loaded) return { ok: false, error: loaded.error };
  const movedBytes = req.inputs.reduce(
    (sum, d) => sum + (d.buffer instanceof SharedArrayBuffer ? 0 : d.byteLength),
    0,
  );
  const { response, transfer } = await execute(loaded.session, req);
  if (movedBytes >= LARGE_GARBAGE_BYTES) {
    // Inputs moved here are this worker's alone and garbage once the run is over: dropped and
    // collected before answering, they are gone before the main thread encodes the response, the
    // request's other large allocation (a worker's full GC takes a few ms; a large run, seconds).
    (req as { inputs: readonly TensorDescriptor[] }).inputs = [];
    collectGarbage();
  }
  readingDue();
  return transfer.length === 0 ? response : movedReply(response, transfer);
}

/**
 * SERVE_TASK (doorbell.ts): the instance's runs and reclaims on the doorbell, until it is stopped.
 * The instance starts it once the session is ready; it occupies this worker's one piscina slot.
 */
export function serve(init: DoorbellInit): Promise<void> {
  return serveDoorbell(init, (call) => (call.kind === 'run' ? run(call.request) : reclaim()));
}
