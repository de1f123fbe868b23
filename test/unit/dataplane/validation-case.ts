// What a validation golden case says, and the builders the cases use to write decoded requests as
// the HTTP and WebSocket codecs produce them (JSON `data` as parsed; raw bytes as views). A case
// names a model of validation-models.ts and either the ValidatedRequest fields the request becomes
// (with the exact bytes each input writes into shared memory) or the exact error code and message.

import type { ErrorCode } from '../../../src/errors.js';
import type {
  DecodedInput,
  DecodedOutput,
  DecodedRequest,
  Parameters,
} from '../../../src/protocol/inference-request.js';
import type { ModelName } from './validation-models.js';

export interface AcceptedInput {
  readonly name: string;
  /** The shape the model receives. */
  readonly shape: readonly number[];
  /** The shape the client sent, when it differs (reshape). */
  readonly requestShape?: readonly number[];
  /** What `write` copies into shared memory, as hex (its length is the byteLength). */
  readonly bytes: string;
}

export interface Accepted {
  readonly batchSize: number;
  readonly inputs: readonly AcceptedInput[];
  /** [name, binary]; default: every model output in config order, not binary. */
  readonly outputs?: readonly (readonly [string, boolean])[];
  readonly priority?: number;
  readonly timeoutUs?: number;
  /** The sequence fields a sequence model's request carries. */
  readonly sequence?: {
    readonly id: number | string;
    readonly start: boolean;
    readonly end: boolean;
  };
}

export interface Refused {
  readonly code: ErrorCode;
  readonly message: string;
}

export interface ValidationCase {
  readonly what: string;
  readonly model: ModelName;
  readonly request: DecodedRequest;
  /** --http-max-input-size; 64 MiB when absent. */
  readonly maxInputBytes?: number;
  /** Refused by validateRequest itself. */
  readonly refused?: Refused;
  readonly accepted?: Accepted;
}

// --- Building decoded requests the way the codecs do ---------------------------------------------

export function json(
  name: string,
  datatype: string,
  shape: readonly unknown[],
  values: unknown,
): DecodedInput {
  return { name, datatype, shape, parameters: {}, data: { kind: 'json', values } };
}

export function raw(
  name: string,
  datatype: string,
  shape: readonly unknown[],
  bytes: ArrayBufferView | readonly number[],
): DecodedInput {
  const view = ArrayBuffer.isView(bytes)
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : Uint8Array.from(bytes);
  return { name, datatype, shape, parameters: {}, data: { kind: 'raw', bytes: view } };
}

export function request(
  inputs: readonly DecodedInput[],
  extra: { id?: string; parameters?: Parameters; outputs?: readonly DecodedOutput[] } = {},
): DecodedRequest {
  return {
    ...(extra.id !== undefined ? { id: extra.id } : {}),
    parameters: extra.parameters ?? {},
    inputs,
    ...(extra.outputs !== undefined ? { outputs: extra.outputs } : {}),
  };
}

export const output = (name: string, parameters: Parameters = {}): DecodedOutput => ({
  name,
  parameters,
});

/** Little-endian hex of a typed array's bytes. */
export function hex(v: ArrayBufferView | readonly number[]): string {
  return ArrayBuffer.isView(v)
    ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')
    : Buffer.from(v).toString('hex');
}

/** The BYTES layout of `elements`: each a 4-byte little-endian length, then its bytes. */
export function bytesLayout(...elements: (string | readonly number[])[]): number[] {
  const out: number[] = [];
  for (const e of elements) {
    const b = typeof e === 'string' ? [...Buffer.from(e, 'utf8')] : [...e];
    out.push(b.length & 0xff, (b.length >>> 8) & 0xff, (b.length >>> 16) & 0xff, b.length >>> 24);
    out.push(...b);
  }
  return out;
}

export const range16 = (from = 0): number[] => Array.from({ length: 16 }, (_, i) => from + i);
export const ones = (n: number): number[] => Array.from({ length: n }, () => 1);
/** A valid INPUT1 of `simple` for `rows` rows. */
export const input1 = (rows = 1): DecodedInput =>
  json('INPUT1', 'INT32', [rows, 16], ones(16 * rows));
