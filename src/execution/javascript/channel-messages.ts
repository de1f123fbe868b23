// The messages of a JavaScript instance's channel: a MessagePort pair its worker opens at load, next
// to piscina's task port, for what does not fit one task -> one reply. Worker -> main: BLS calls
// (`context.infer` / `context.inferStream`) and a decoupled model's responses (`request.sender`).
// Main -> worker: each call's streamed responses and its reply. Plain data only (structured clone):
// tensors cross as descriptors of SharedArrayBuffer memory, or as Uint8Array views of it (a view of
// shared memory is cloned as a view of the same memory, not copied).
//
// Ownership: a call's input block is the worker's until the call is answered (the data plane copies
// it once into the callee's batch); a reply's output views belong to the callee's output block,
// which the caller keeps alive as long as it holds them. A decoupled response's block is the main
// thread's from the moment it is posted.

import type { MessagePort } from 'node:worker_threads';
import type { WireError } from '../../errors.js';
import type { Parameters } from '../../protocol/inference-request.js';
import type { Datatype } from '../../tensor/datatypes.js';
import type { TensorDescriptor } from '../../tensor/tensor.js';

/** The worker's first message on parentPort: the main side's end of its channel. */
export interface ChannelOpened {
  readonly type: 'infernode:channel';
  readonly threadId: number;
  readonly port: MessagePort;
}

/** A BLS call: `context.infer` (stream false) or `context.inferStream` (stream true). */
export interface BlsCall {
  readonly type: 'call';
  /** Unique per worker; the reply and stream items name it. */
  readonly id: number;
  readonly stream: boolean;
  readonly model: string;
  /** Absent: the model's version policy picks. */
  readonly version?: string;
  /** One block of shared memory holding every input. */
  readonly inputs: readonly TensorDescriptor[];
  /** Absent: every output of the model. */
  readonly outputs?: readonly string[];
  readonly parameters: Parameters;
  /** Absent: the caller's execute_timeout_ms. */
  readonly timeoutMs?: number;
}

/** One output of a BLS answer: its bytes as a view of the callee's output block. */
export interface BlsOutput {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly data: Uint8Array;
}

export interface BlsAnswer {
  readonly model_name: string;
  readonly model_version: string;
  readonly outputs: readonly BlsOutput[];
}

/** A call's one reply (for a stream: after every item; the final flag). */
export type BlsReply =
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly answer: BlsAnswer }
  | { readonly type: 'reply'; readonly id: number; readonly ok: false; readonly error: WireError };

/** One response of a streamed call, before its reply. */
export type BlsStreamItem =
  | { readonly type: 'item'; readonly id: number; readonly ok: true; readonly answer: BlsAnswer }
  | { readonly type: 'item'; readonly id: number; readonly ok: false; readonly error: WireError };

/**
 * A decoupled model's response to member `member` of run `run`: outputs in a block of their own,
 * or the error that answers this response only.
 */
export type SenderResponse =
  | {
      readonly type: 'response';
      readonly run: number;
      readonly member: number;
      readonly ok: true;
      readonly outputs: readonly TensorDescriptor[];
    }
  | {
      readonly type: 'response';
      readonly run: number;
      readonly member: number;
      readonly ok: false;
      readonly error: WireError;
    };

/** `sender.close()`: member `member` of run `run` has had its last response. */
export interface SenderFinal {
  readonly type: 'final';
  readonly run: number;
  readonly member: number;
}

export type WorkerToMain = BlsCall | SenderResponse | SenderFinal;
export type MainToWorker = BlsReply | BlsStreamItem;

const isObject = (m: unknown): m is Record<string, unknown> => typeof m === 'object' && m !== null;

export function isChannelOpened(m: unknown): m is ChannelOpened {
  return isObject(m) && m.type === 'infernode:channel' && typeof m.threadId === 'number';
}

export function isWorkerToMain(m: unknown): m is WorkerToMain {
  if (!isObject(m)) return false;
  if (m.type === 'call') return typeof m.id === 'number' && typeof m.model === 'string';
  return (
    (m.type === 'response' || m.type === 'final') &&
    typeof m.run === 'number' &&
    typeof m.member === 'number'
  );
}

export function isMainToWorker(m: unknown): m is MainToWorker {
  return isObject(m) && (m.type === 'reply' || m.type === 'item') && typeof m.id === 'number';
}
