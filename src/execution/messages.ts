// Typed messages at the worker boundary (main thread <-> model-instance worker: workers/ort-worker.ts
// for ONNX models, workers/js-worker.ts for JavaScript models; both speak these messages).
//
// Lifecycle of one worker (one model instance): the pool's `STARTED_TASK` makes piscina start it
// with `WorkerInit` as workerData; the worker creates its InferenceSession (load) and runs the warmup
// requests it is given, reports a `WorkerEvent`, then serves `RunRequest`s one at a time (execute)
// until its pool is destroyed (unload) or it is lost and replaced (model-instance.ts). A pool is
// destroyed only when no run is in flight: terminating a thread inside session.run aborts the
// process (onnxruntime-node 1.30), so cancellation is cooperative — a run always finishes and an
// unwanted result is dropped by the caller.
//
// Ownership: input descriptors point into SharedArrayBuffer memory owned by the caller; the worker
// only reads it, and only until it replies. Output descriptors point into a SharedArrayBuffer the
// worker allocated for that reply; from the reply on, the caller owns it and the worker keeps no
// reference.
//
// A JavaScript worker's lifecycle is the same (load = import the model's module and call its
// initialize()), plus one task at the end: before its pool is destroyed, FINALIZE_TASK calls the
// module's finalize(). A JavaScript worker may be terminated during a run: it holds no ORT session,
// and that is how an execute() past its timeout is stopped (model-instance.ts).

import type { ModelIO } from '../config/read-model-io.js';
import type { WireError } from '../errors.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import type { RegionWrite } from '../shared-memory/region-write.js';

/**
 * workerData for a model-instance worker: the fields every backend's worker gets. A backend adds its
 * own (run-channel.ts, `WorkerBackend.workerData`): the ORT worker's session plan and device lock
 * (onnxruntime/session-plan.ts's `OrtWorkerInit`), the JavaScript worker's config and outputs
 * (javascript/js-workers.ts's `JavascriptWorkerData`). Plain data only (structured clone).
 */
export interface WorkerInit {
  readonly model: string;
  readonly version: number;
  /** Triton-style instance name, e.g. `mlp_0` or `mlp_0_gpu1`. */
  readonly instance: string;
  readonly modelPath: string;
  /**
   * True when ORT accepts tensors over SharedArrayBuffer views (Node 22+); false on Node 20, where
   * the worker copies inputs into a reusable worker-local buffer first. Detected once at start.
   */
  readonly sabTensors: boolean;
  /**
   * `model_warmup` entries, inputs already in shared memory (the caller keeps that memory alive
   * until the pool has started). Each worker runs them in order after creating its session and
   * before reporting ready; a failure fails the worker's load, as in Triton. Absent: no warmup.
   */
  readonly warmup?: readonly WarmupRun[];
  /** This worker's instance: `instance`, suffixed `_<k>` when the group has several (set per worker). */
  readonly instanceName?: string;
  /**
   * Int32 [0], bumped by the main thread every --metrics-interval-ms (ThreadMetrics.tick): after a
   * run that finds it changed, the worker posts its `WorkerReadings` (and once when ready). Absent
   * on a server without metrics: it posts none.
   */
  readonly readingsTick?: SharedArrayBuffer;
}

/** One `model_warmup` entry: run `request` `count` times. */
export interface WarmupRun {
  readonly name: string;
  readonly count: number;
  readonly request: RunRequest;
}

/** The worker module's named export that the pool runs first, to make piscina start the thread. */
export const STARTED_TASK = 'started';

/**
 * The ORT worker's export that releases its session (inside the device lock, for GPU instances that
 * hold one) before its pool is destroyed, so no session is freed by a thread's teardown while
 * another thread runs on the same device.
 */
export const RELEASE_TASK = 'release';

/** The JavaScript worker's export that calls the model's finalize() before its pool is destroyed. */
export const FINALIZE_TASK = 'finalize';

/**
 * The worker module's named export that gives memory back after large requests (task argument:
 * null; result: nothing). It drops the worker's input scratch and runs a full GC of the worker's
 * heap, so the worker-local copies and ORT output buffers of a large run are freed now rather than
 * at some later GC (a worker idles in Atomics.wait, where V8 schedules none). The pool sends it
 * only to an idle instance (src/memory/reclaim-after-large.ts decides when).
 */
export const RECLAIM_TASK = 'reclaim';

export interface RunRequest {
  readonly inputs: readonly TensorDescriptor[];
  /** Output names to return, in order. Empty: every model output, in the model's order. */
  readonly outputs: readonly string[];
  /**
   * Set by the dynamic batcher for a batching model: the rows each batched request has, in order
   * (their sum is the inputs' first dim). The ORT worker runs the batch as one; the JavaScript
   * worker hands the model one request per member and answers with `members`.
   */
  readonly members?: readonly number[];
  /**
   * The run's number on its instance (model-instance.ts), which a decoupled model's responses on
   * the instance channel carry, so the main thread hands them to this run's requests.
   */
  readonly run?: number;
  /**
   * --trace-stages: a member of this run is traced, so the worker and the instance stamp the run's
   * stages (RunTiming.stamps). Absent otherwise, and then nothing is stamped.
   */
  readonly trace?: true;
  /**
   * Outputs the worker writes straight into a client's shared-memory region instead of returning
   * them (a lone request's fixed-size outputs; the dynamic batcher sets it). The main thread keeps
   * each region's fd open until the reply arrives. A worker that does not write them (the
   * JavaScript worker) returns them as usual and the main thread writes them.
   */
  readonly regionWrites?: readonly RegionWrite[];
}

/**
 * One batched request's result from a worker that answers per member: its outputs (each in a
 * slot of its own, so members may differ in shape), or the error that answers it alone.
 */
export type MemberResult =
  | { readonly ok: true; readonly outputs: readonly TensorDescriptor[] }
  | { readonly ok: false; readonly error: WireError };

export interface RunTiming {
  /** Nanoseconds spent building ORT input tensors. */
  readonly inputNs: number;
  /** Nanoseconds inside session.run. */
  readonly inferNs: number;
  /** Nanoseconds spent copying outputs into shared memory. */
  readonly outputNs: number;
  /** Set when the request asked for `trace`: the run's stamps on the process-wide clock. */
  readonly stamps?: RunStamps;
}

/**
 * A traced run's moments, ns of process.hrtime (one monotonic clock for every thread of the
 * process). The worker sets its four; the instance (main thread) adds `postNs` and `resumeNs`.
 */
export interface RunStamps {
  /** Main thread: the task was handed to the worker. */
  readonly postNs?: number;
  /** Worker: its task handler started. */
  readonly workerStartNs: number;
  /** Worker: input tensors built, session.run called. */
  readonly runStartNs: number;
  /** Worker: session.run returned. */
  readonly runEndNs: number;
  /** Worker: outputs copied; the reply leaves. */
  readonly workerEndNs: number;
  /** Main thread: the reply arrived. */
  readonly resumeNs?: number;
}

export type RunResponse =
  | {
      readonly ok: true;
      readonly outputs: readonly TensorDescriptor[];
      readonly timing: RunTiming;
      /**
       * Per member of `RunRequest.members`, when the worker answered each one (JavaScript models);
       * `outputs` is then empty. Absent: `outputs` are the whole batch's, rows in member order.
       */
      readonly members?: readonly MemberResult[];
      /**
       * Outputs written into their regions (RunRequest.regionWrites), by name, with the bytes
       * written; their descriptors in `outputs` are empty (byteLength 0).
       */
      readonly written?: Readonly<Record<string, number>>;
    }
  | { readonly ok: false; readonly error: WireError };

/**
 * What a worker posts on its parentPort (piscina re-emits it as the pool's 'message' event) once its
 * session is created, or failed to be. The pool waits for these to know every instance is loaded
 * before it reports ready, and never destroys a worker while it is still inside session creation
 * (that too would terminate a thread inside ORT). `threadId` tells the current worker's report from
 * a lost one's, since an instance's successive workers share one workerData.
 */
/**
 * A worker's own figures for infernode_thread_heap_used_bytes, posted on its parentPort (piscina
 * re-emits them as the pool's 'message'). Only after a run, once per metrics interval: an idle
 * worker is parked in Atomics.wait, where no timer runs, and its heap does not move then. Its busy
 * share needs no message: the main thread adds up the runs' timings (worker-readings.ts).
 */
export interface WorkerReadings {
  readonly type: 'infernode:readings';
  readonly threadId: number;
  readonly heapUsedBytes: number;
}

export type WorkerEvent =
  | {
      readonly type: 'infernode:session-ready';
      readonly threadId: number;
      readonly instance: string;
      /** The session's own inputs and outputs, so the loader can check the config against them. */
      readonly io: ModelIO;
      /** Nanoseconds from the start of InferenceSession.create to ready, warmup included. */
      readonly loadNs: number;
      /** `model_warmup` requests this worker ran before reporting ready (each sample × count). */
      readonly warmupRuns: number;
      /** Nanoseconds those warmup requests took. */
      readonly warmupNs: number;
    }
  | {
      readonly type: 'infernode:session-failed';
      readonly threadId: number;
      readonly instance: string;
      /** Already scrubbed of file-system paths. */
      readonly error: WireError;
    };
