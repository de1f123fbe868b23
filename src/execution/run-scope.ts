// What a run carries besides its RunRequest, kept on the main thread: the signals of the requests in
// it (a JavaScript model's BLS calls are cancelled once every one of them is gone) and, for a
// decoupled model, where each request's responses go as the worker sends them. The scheduler builds
// it from the run's ValidatedRequests; the instance that executes the run uses it.

import type { StageTrace } from '../trace/stage-trace.js';
import type { AbortLike } from './abort-like.js';
import type { WireError } from '../errors.js';
import type { TensorDescriptor } from '../tensor/tensor.js';

/** Where one request's responses go before its final flag (the run's end answers that). */
export interface ResponseSink {
  /** One response: the outputs the worker packed (every output the run wanted), in a new block. */
  response(outputs: readonly TensorDescriptor[]): void;
  /** One response that is an error; more may follow. */
  error(error: WireError): void;
}

export interface RunScope {
  /** Per member, in order: its request's signal. */
  readonly signals: readonly AbortLike[];
  /** Per member, in order: its sink (decoupled models only). */
  readonly sinks?: readonly (ResponseSink | undefined)[];
  /** Per member, in order: its trace, when a member is traced (BLS calls are traced under it). */
  readonly traces?: readonly (StageTrace | undefined)[];
}
