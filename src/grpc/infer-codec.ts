// The gRPC inference codec: a `ModelInferRequest` (as proto-loader decodes it) -> the transport-free
// `DecodedRequest`, and an `InferenceResponse` -> a `ModelInferResponse`. Inputs keep Triton's two
// spellings (typed `contents` or `raw_input_contents`); outputs always go raw, as Triton sends them.

import { Buffer } from 'node:buffer';
import { fail } from '../errors.js';
import {
  MAX_TENSORS,
  type DecodedInput,
  type DecodedRequest,
  type InferenceResponse,
  type ParameterValue,
  type Parameters,
} from '../protocol/inference-request.js';
import { contentsToRaw, type TensorContents } from './tensor-contents.js';
import { checkSequenceParameters } from '../protocol/sequence-parameters.js';
import { SHM_REGION, sharedMemoryParameters } from '../protocol/shm-parameters.js';
import { refuseRepeatedNames, repeatedNameError } from '../protocol/tensor-names.js';

/** `InferParameter`, with proto-loader's `oneofs` naming the member that is set. */
export interface InferParameter {
  readonly parameter_choice?: string;
  readonly bool_param?: boolean;
  readonly int64_param?: string | number;
  readonly string_param?: string;
  readonly double_param?: number;
  readonly uint64_param?: string | number;
}

export interface InferInputTensor {
  readonly name: string;
  readonly datatype: string;
  readonly shape: readonly (string | number)[];
  readonly parameters?: Readonly<Record<string, InferParameter>>;
  readonly contents?: TensorContents | null;
}

export interface ModelInferRequest {
  readonly model_name: string;
  readonly model_version: string;
  readonly id: string;
  readonly parameters?: Readonly<Record<string, InferParameter>>;
  readonly inputs: readonly InferInputTensor[];
  readonly outputs: readonly {
    readonly name: string;
    readonly parameters?: Readonly<Record<string, InferParameter>>;
  }[];
  readonly raw_input_contents: readonly Uint8Array[];
  /**
   * Set by the wire decoder (infer-request-wire.ts) when a repeated tensor field had more than
   * MAX_TENSORS entries: the lists above then stop at MAX_TENSORS, and these are their true lengths.
   */
  readonly tensorCounts?: TensorCounts;
}

export type TensorListName = 'inputs' | 'outputs';

/** What the wire decoder counted of a message it cut short (infer-request-wire.ts). */
export interface TensorCounts {
  readonly inputs: number;
  readonly outputs: number;
  readonly raw: number;
  /** The list whose element MAX_TENSORS + 1 stopped the reading: the counts are lower bounds. */
  readonly cut?: TensorListName;
}

export interface ModelInferResponse {
  readonly model_name: string;
  readonly model_version: string;
  readonly id: string;
  readonly parameters: Record<string, InferParameter>;
  readonly outputs: {
    readonly name: string;
    readonly datatype: string;
    readonly shape: readonly number[];
    readonly parameters: Record<string, InferParameter>;
  }[];
  readonly raw_output_contents: Uint8Array[];
}

/** The version the data plane resolves: '' (the field's default) is the latest. */
export function versionOf(version: string): string | undefined {
  return version === '' ? undefined : version;
}

export function decodeInferRequest(msg: ModelInferRequest): DecodedRequest {
  const { inputs, outputs } = msg;
  const counts = msg.tensorCounts;
  const inputCount = counts?.inputs ?? inputs.length;
  const outputCount = counts?.outputs ?? outputs.length;
  if (inputCount > MAX_TENSORS || outputCount > MAX_TENSORS) {
    const got =
      counts?.cut === undefined
        ? `${inputCount} and ${outputCount}`
        : `more than ${MAX_TENSORS} ${counts.cut}`;
    throw fail(
      'TOO_MANY_TENSORS',
      `a request may name at most ${MAX_TENSORS} inputs and ${MAX_TENSORS} outputs, got ${got}`,
    );
  }
  // Validation relies on the codecs for this (as in the HTTP and WebSocket codecs).
  refuseRepeats(inputs, 'inputs');
  refuseRepeats(outputs, 'outputs');
  const raw = msg.raw_input_contents;
  const rawCount = counts?.raw ?? raw.length;
  // Inputs in shared memory have no raw_input_contents entry (as in Triton).
  let inShm = 0;
  for (let i = 0; i < inputs.length; i += 1) {
    const p = (inputs[i] as InferInputTensor).parameters;
    if (p !== undefined && Object.hasOwn(p, SHM_REGION)) inShm += 1;
  }
  if (rawCount > 0 && rawCount !== inputs.length - inShm) {
    throw fail(
      'BAD_REQUEST',
      `raw_input_contents has ${rawCount} entries for ${inputs.length - inShm} inputs: it must ` +
        `hold one per input${inShm > 0 ? ' not in shared memory' : ''}, in the order of inputs`,
    );
  }
  // Loops and objects of one shape rather than map() and conditional spreads: this runs once per
  // request, and the spreads alone cost more than the rest of it.
  const decoded: DecodedInput[] = [];
  let rawIndex = 0;
  for (let i = 0; i < inputs.length; i += 1) {
    const t = inputs[i] as InferInputTensor;
    const typed = t.contents ?? undefined;
    const parameters = decodeParameters(t.parameters);
    // int64 dimensions arrive as decimal strings; validation checks each is a safe integer >= 0.
    const shape: number[] = [];
    for (const d of t.shape) shape.push(Number(d));
    const shm = inShm > 0 ? sharedMemoryParameters(t.name, parameters) : undefined;
    if (shm !== undefined) {
      if (typed !== undefined && hasContents(typed)) {
        throw fail(
          'BAD_REQUEST',
          `unexpected 'content' provided when using shared memory for input tensor '${t.name}' ` +
            `for model '${msg.model_name}'`,
        );
      }
      decoded.push({ name: t.name, datatype: t.datatype, shape, parameters, data: shm });
      continue;
    }
    if (raw.length > 0 && typed !== undefined && hasContents(typed)) {
      throw fail(
        'BAD_REQUEST',
        `input '${t.name}': contents must not be set when raw_input_contents is used`,
      );
    }
    const bytes =
      raw.length > 0
        ? (raw[rawIndex++] as Uint8Array)
        : contentsToRaw(t.name, t.datatype, typed ?? {});
    decoded.push({
      name: t.name,
      datatype: t.datatype,
      shape,
      parameters,
      data: { kind: 'raw', bytes },
    });
  }
  const request: { id?: string } & Omit<DecodedRequest, 'id'> = {
    parameters: checkSequenceParameters(decodeParameters(refuseDoubleSequenceId(msg.parameters))),
    inputs: decoded,
  };
  if (msg.id !== '') request.id = msg.id;
  if (outputs.length > 0) {
    return {
      ...request,
      outputs: outputs.map((o) => ({ name: o.name, parameters: decodeParameters(o.parameters) })),
    };
  }
  return request;
}

/**
 * refuseRepeatedNames for a request's tensors: a few (the usual case) compared pairwise, without
 * building a list and a set; many through the set, so the check stays linear.
 */
function refuseRepeats(
  tensors: readonly { readonly name: string }[],
  what: 'inputs' | 'outputs',
): void {
  if (tensors.length > 8) {
    refuseRepeatedNames(
      tensors.map((t) => t.name),
      what,
    );
    return;
  }
  for (let i = 1; i < tensors.length; i += 1) {
    const name = (tensors[i] as { readonly name: string }).name;
    for (let j = 0; j < i; j += 1) {
      if ((tensors[j] as { readonly name: string }).name === name) {
        throw repeatedNameError(name, what);
      }
    }
  }
}

/**
 * A sequence_id sent as double_param is refused, as Triton does: decoded, it would be a number like
 * any integer id, and a fractional or rounded id must not pass for one.
 */
function refuseDoubleSequenceId(
  p: Readonly<Record<string, InferParameter>> | undefined,
): Readonly<Record<string, InferParameter>> | undefined {
  const choice = p !== undefined && Object.hasOwn(p, 'sequence_id') ? p['sequence_id'] : undefined;
  if (choice?.parameter_choice === 'double_param') {
    throw fail(
      'BAD_PARAMETER',
      "request parameter 'sequence_id' must be an int64_param, uint64_param or string_param, " +
        'got double_param',
    );
  }
  return p;
}

function hasContents(c: TensorContents): boolean {
  return Object.values(c).some((v) => Array.isArray(v) && v.length > 0);
}

function hasKeys(o: object | undefined): o is object {
  if (o === undefined) return false;
  for (const key in o) if (Object.hasOwn(o, key)) return true;
  return false;
}

/** The parameters of a request or tensor that sets none: most of them, so one object serves all. */
const NO_PARAMETERS: Parameters = Object.freeze(Object.create(null) as Parameters);

export function decodeParameters(
  p: Readonly<Record<string, InferParameter>> | undefined,
): Parameters {
  if (!hasKeys(p)) return NO_PARAMETERS;
  const out: Record<string, ParameterValue> = Object.create(null) as Record<string, ParameterValue>;
  for (const [key, v] of Object.entries(p)) {
    switch (v.parameter_choice) {
      case 'bool_param':
        out[key] = v.bool_param === true;
        break;
      case 'string_param':
        out[key] = v.string_param ?? '';
        break;
      case 'double_param':
        out[key] = v.double_param ?? 0;
        break;
      case 'int64_param':
      case 'uint64_param': {
        // With `longs: String` both arrive as exact decimal digits; a value a JS number cannot hold
        // exactly (a uint64 sequence_id past 2^53-1, say) is refused with the digits sent.
        const sent = v[v.parameter_choice] ?? 0;
        const n = Number(sent);
        if (!Number.isSafeInteger(n)) {
          throw fail(
            'BAD_PARAMETER',
            `parameter '${key}': ${v.parameter_choice} must be within ±(2^53-1) ` +
              `(${Number.MAX_SAFE_INTEGER}), got ${String(sent)}`,
          );
        }
        out[key] = n;
        break;
      }
      default:
        throw fail('BAD_PARAMETER', `parameter '${key}' has no value`);
    }
  }
  return out;
}

export function encodeParameters(p: Parameters | undefined): Record<string, InferParameter> {
  const out: Record<string, InferParameter> = {};
  if (p === undefined) return out;
  for (const [key, v] of Object.entries(p)) {
    if (typeof v === 'boolean') out[key] = { bool_param: v };
    else if (typeof v === 'string') out[key] = { string_param: v };
    else if (Number.isSafeInteger(v)) out[key] = { int64_param: v };
    else out[key] = { double_param: v };
  }
  return out;
}

/**
 * The response message. Output bytes are views of shared memory that the scheduler reuses once this
 * returns, so each is copied here (once) into the buffer protobuf serializes from.
 */
export function encodeInferResponse(r: InferenceResponse): ModelInferResponse {
  return {
    model_name: r.model_name,
    model_version: r.model_version,
    id: r.id ?? '',
    // The response's own parameters, never the request's: Triton does not echo request
    // parameters (it copies only what the backend set on the response, InferResponseCompleteCommon
    // in its infer_handler.h), and the ONNX Runtime backend sets none.
    parameters: encodeParameters(r.parameters),
    outputs: r.outputs.map((o) => ({
      name: o.name,
      datatype: o.datatype,
      shape: o.shape,
      parameters: encodeParameters(o.parameters),
    })),
    // An output written into shared memory has no entry, as in Triton (its allocator adds a raw
    // output only for outputs it allocates): entries follow the other outputs in order.
    raw_output_contents: rawOutputs(r.outputs),
  };
}

/** Each output's bytes, copied once; outputs in shared memory are skipped. */
function rawOutputs(outputs: InferenceResponse['outputs']): Buffer[] {
  const raw: Buffer[] = [];
  for (const o of outputs) if (o.inSharedMemory !== true) raw.push(Buffer.from(o.data));
  return raw;
}
