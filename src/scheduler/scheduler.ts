// The scheduler interface: the three operations of Triton's core scheduler.h, and a fourth, stopNow,
// for a shutdown that cannot wait for the queue. `scheduler-shell.ts` implements it once;
// strategies (scheduling-strategy.ts) plug into the shell.
//
// Ownership: `enqueue` takes the validated request; from then on the scheduler owns it until the
// returned promise settles. The scheduler copies the request's tensors into shared memory when it
// dispatches, so the caller must keep the request's body alive until then (the validated inputs'
// `write` closures hold it). Output views in the result point into shared memory the result owns.

import type { Datatype } from '../tensor/datatypes.js';
import type { ValidatedRequest } from './validated-request.js';

export interface ScheduledOutput {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  /** View of shared memory holding this request's rows of the output. */
  readonly data: Uint8Array;
  /**
   * Set when the worker wrote the output into the request's shared-memory region already
   * (RunRequest.regionWrites): the bytes written; `data` is then empty.
   */
  readonly writtenBytes?: number;
}

export interface SchedulerResult {
  readonly outputs: readonly ScheduledOutput[];
  /** Time the request waited in the queue, and its execution's compute stages, in ns. */
  readonly queueNs: number;
  readonly inputNs: number;
  readonly inferNs: number;
  readonly outputNs: number;
}

export interface Scheduler {
  /**
   * Queues the request and resolves with its outputs, or rejects with an InferenceServerError:
   * QUEUE_FULL / QUEUE_TIMEOUT (503), CANCELLED when `request.signal` aborts before a result,
   * SHUTTING_DOWN after `stop`, INFER_FAILED / WORKER_FAILED from execution.
   */
  enqueue(request: ValidatedRequest): Promise<SchedulerResult>;
  /** Requests accepted and not yet answered (queued plus executing). */
  inflightCount(): number;
  /** Refuses new requests, lets queued and executing ones finish, then resolves. */
  stop(): Promise<void>;
  /**
   * Refuses new requests and answers every queued one with SHUTTING_DOWN at once; resolves when
   * the runs under way have returned and their requests are answered (one batch per instance).
   * A run is never cut short: a worker inside ONNX Runtime cannot be stopped safely.
   */
  stopNow(): Promise<void>;
}
