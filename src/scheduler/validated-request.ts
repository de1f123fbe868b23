// The only request type a scheduler accepts. `dataplane/validate-request.ts` is the only producer
// (the brand below cannot be forged elsewhere without a cast): every tensor name, datatype, shape,
// batch size and byte size has been checked against the model's frozen config.

import type { AbortLike } from '../execution/abort-like.js';
import type { ShmRegion } from '../shared-memory/shm-region.js';
import type { RequestRegions } from '../shared-memory/request-regions.js';
import type { ResponseSink } from '../execution/run-scope.js';
import type { Datatype } from '../tensor/datatypes.js';
import type { StageTrace } from '../trace/stage-trace.js';
import type { TenantTag } from './tenant-tag.js';

declare const validated: unique symbol;

export interface ValidatedInput {
  readonly name: string;
  readonly datatype: Datatype;
  /** The shape the model receives: batch dim (if batching) followed by dims, or reshape applied. */
  readonly shape: readonly number[];
  /** The shape the client sent (kept for error messages). */
  readonly requestShape: readonly number[];
  /** Bytes this tensor occupies in shared memory (BYTES: the length-prefixed layout). */
  readonly byteLength: number;
  /**
   * Copies the tensor's bytes into `target` (exactly byteLength): raw data straight from the
   * network buffer, JSON data from the bytes validation converted it into. Cannot fail on the data:
   * every element was checked during validation.
   */
  write(target: Uint8Array): void;
  /**
   * The bytes `write` copies, when they are one view: the request's own memory (a view of its body,
   * or what JSON data was converted into). A lone large request hands them to its worker without
   * the copy when their buffer is movable (src/memory/movable-buffers.ts). Absent when only
   * `write` can produce them (a shared-memory region, read at run time): a lone large request then
   * reads them into memory of its own, which moves (src/scheduler/moved-inputs.ts).
   */
  readonly bytes?: Uint8Array;
}

export interface ValidatedOutput {
  readonly name: string;
  /** Return this output with the binary tensor extension. */
  readonly binary: boolean;
  /**
   * Write this output into a shared-memory region instead of the response (held by the request's
   * RequestRegions until it is answered); `offset` is within the registered window.
   */
  readonly shm?: OutputRegion;
}

/** Where a requested output goes in shared memory, as the client named it. */
export interface OutputRegion {
  readonly region: ShmRegion;
  readonly offset: number;
  readonly byteSize: number;
}

/** Where a request stands in its sequence (Triton's sequence extension); sequence models only. */
export interface SequenceFields {
  /** The correlation id: a safe integer > 0 or a non-empty string (0 and "" mean none). */
  readonly id: number | string;
  readonly start: boolean;
  readonly end: boolean;
}

export interface ValidatedRequest {
  readonly [validated]: true;
  readonly model: string;
  readonly version: number;
  readonly id?: string;
  /** Rows in the request: the first dim when the model batches, else 1. */
  readonly batchSize: number;
  readonly inputs: readonly ValidatedInput[];
  readonly outputs: readonly ValidatedOutput[];
  /** 0 = the model's default level; 1 is the highest priority (Triton's schedule_policy extension). */
  readonly priority: number;
  /** Queue timeout in microseconds; 0 = none. */
  readonly timeoutUs: number;
  /** Set exactly when the model has sequence batching. */
  readonly sequence?: SequenceFields;
  /** Aborted when the client goes away (an AbortSignal, or the HTTP front end's own flag). */
  readonly signal: AbortLike;
  /** process.hrtime.bigint() when the request was accepted, as a number of ns. */
  readonly arrivalNs: number;
  /**
   * Set exactly when the model is decoupled: where its responses go as the model sends them; the
   * scheduler's result (no outputs) is then the final flag.
   */
  readonly responses?: ResponseSink;
  /** --trace-stages: the request's timeline, which the shell stamps (enqueue to settle). */
  readonly trace?: StageTrace;
  /**
   * The shared-memory regions the request's inputs and outputs use (absent when it names none).
   * The data plane releases them once the request is answered; schedulers never touch them.
   */
  readonly regions?: RequestRegions;
  /** The tenant the request is admitted for (--tenant-header), and its share for fair dequeuing. */
  readonly tenant?: TenantTag;
}

/** Used by the validator only. */
export function brandValidated(r: Omit<ValidatedRequest, typeof validated>): ValidatedRequest {
  return r as ValidatedRequest;
}
