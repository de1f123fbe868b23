// The tensors of a BLS call, each way across the channel (channel-messages.ts). Worker side: the
// caller's `inputs` in the JS tensor mapping -> descriptors in one shared block (a TypedArray that
// already lives in shared memory, such as a request's own input, is passed as it is). Main side:
// the descriptors -> a DecodedRequest for the data plane, and its response -> views of the callee's
// output block. Worker side again: those views -> the tensors the caller reads, in the same mapping
// a JS model's request inputs use (TypedArrays; BYTES as Uint8Array[] plus `strings`).

import { fail, type InferenceServerError } from '../../errors.js';
import { TensorBlock } from '../../memory/tensor-block.js';
import { typedViewOf } from '../../memory/views.js';
import type {
  DecodedRequest,
  InferenceResponse,
  Parameters,
} from '../../protocol/inference-request.js';
import { bytesElements } from '../../tensor/bytes-tensor.js';
import { datatypeInfo, isDatatype, type Datatype } from '../../tensor/datatypes.js';
import { elementCount } from '../../tensor/shape.js';
import type { TensorDescriptor } from '../../tensor/tensor.js';
import type { BlsAnswer, BlsCall } from './channel-messages.js';
import { JsInputTensor } from './js-requests.js';
import { tensorBytes } from './js-responses.js';

const badData = (message: string): InferenceServerError => fail('BAD_TENSOR_DATA', message);

/** What `context.infer` resolves to on success. */
export interface BlsResult {
  readonly model_name: string;
  readonly model_version: string;
  readonly outputs: Readonly<Record<string, JsInputTensor>>;
}

/**
 * `inputs` (`{ <name>: { datatype, shape, data } }`) -> descriptors. Throws BAD_REQUEST,
 * BAD_DATATYPE, BAD_SHAPE or BAD_TENSOR_DATA naming the input, before anything is sent.
 */
export function packCallInputs(inputs: unknown): TensorDescriptor[] {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw fail('BAD_REQUEST', `BLS inputs: expected { <name>: { datatype, shape, data } }`);
  }
  const shared: (TensorDescriptor | undefined)[] = [];
  const copies: { name: string; datatype: Datatype; shape: number[]; bytes: Uint8Array }[] = [];
  for (const [name, tensor] of Object.entries(inputs as Record<string, unknown>)) {
    const at = `BLS input "${name}"`;
    if (typeof tensor !== 'object' || tensor === null) {
      throw fail('BAD_REQUEST', `${at}: expected { datatype, shape, data }, got ${typeof tensor}`);
    }
    const { datatype, shape, data } = tensor as Record<string, unknown>;
    if (!isDatatype(datatype)) {
      throw fail('BAD_DATATYPE', `${at}: expected a KServe datatype, got ${String(datatype)}`);
    }
    const valid =
      Array.isArray(shape) && shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0);
    if (!valid) {
      throw fail('BAD_SHAPE', `${at}: expected a shape of integers >= 0, got ${String(shape)}`);
    }
    const dims = [...(shape as number[])];
    const bytes = tensorBytes(at, datatype, data, elementCount(dims), badData);
    if (bytes.buffer instanceof SharedArrayBuffer) {
      shared.push({
        name,
        datatype,
        shape: dims,
        buffer: bytes.buffer,
        byteOffset: bytes.byteOffset,
        byteLength: bytes.byteLength,
      });
    } else {
      shared.push(undefined);
      copies.push({ name, datatype, shape: dims, bytes });
    }
  }
  if (copies.length === 0) return shared as TensorDescriptor[];
  const block = TensorBlock.allocate(
    copies.map((c) => ({
      name: c.name,
      datatype: c.datatype,
      shape: c.shape,
      byteLength: c.bytes.byteLength,
    })),
  );
  copies.forEach((c, i) => block.write(i, c.bytes));
  let next = 0;
  return shared.map((d) => d ?? (block.descriptors[next++] as TensorDescriptor));
}

/** Main side: a call as the data plane's request (raw tensor bytes, views of the worker's block). */
export function callRequest(call: BlsCall): DecodedRequest {
  return {
    parameters: call.parameters,
    inputs: call.inputs.map((d) => ({
      name: d.name,
      datatype: d.datatype,
      shape: d.shape,
      parameters: {},
      data: { kind: 'raw', bytes: new Uint8Array(d.buffer, d.byteOffset, d.byteLength) },
    })),
    ...(call.outputs !== undefined && {
      outputs: call.outputs.map((name) => ({ name, parameters: {} })),
    }),
  };
}

/** Main side: a data plane response -> the answer posted back (its outputs' views, no copy). */
export function answerOf(response: InferenceResponse): BlsAnswer {
  return {
    model_name: response.model_name,
    model_version: response.model_version,
    outputs: response.outputs.map((o) => ({
      name: o.name,
      datatype: o.datatype,
      shape: o.shape,
      data: o.data,
    })),
  };
}

/** Worker side: the answer's outputs as the caller reads them. */
export function resultOf(answer: BlsAnswer): BlsResult {
  const outputs: Record<string, JsInputTensor> = {};
  for (const o of answer.outputs) {
    const data = o.datatype === 'BYTES' ? bytesElements(o.data) : numericView(o.datatype, o.data);
    outputs[o.name] = new JsInputTensor(o.name, o.datatype, o.shape, data);
  }
  return Object.freeze({
    model_name: answer.model_name,
    model_version: answer.model_version,
    outputs: Object.freeze(outputs),
  });
}

/** A view of the bytes as the datatype's TypedArray; copied only when they are not aligned. */
function numericView(datatype: Datatype, bytes: Uint8Array): JsInputTensor['data'] {
  const size = datatypeInfo(datatype).byteSize;
  const aligned = bytes.byteOffset % size === 0 ? bytes : bytes.slice();
  return typedViewOf(aligned.buffer, aligned.byteOffset, aligned.byteLength, datatype);
}

/** The call's options, checked: `{ version?, outputs?, parameters?, timeoutMs? }`. */
export interface CallOptions {
  readonly version?: string;
  readonly outputs?: readonly string[];
  readonly parameters: Parameters;
  readonly timeoutMs?: number;
}

export function readCallOptions(options: unknown): CallOptions {
  if (options === undefined || options === null) return { parameters: {} };
  if (typeof options !== 'object') {
    throw fail('BAD_REQUEST', `BLS options: expected an object, got ${typeof options}`);
  }
  const { version, outputs, parameters, timeoutMs } = options as Record<string, unknown>;
  if (version !== undefined && typeof version !== 'string' && typeof version !== 'number') {
    throw fail('BAD_VERSION', `BLS options.version: expected a number or a string`);
  }
  if (outputs !== undefined && !(Array.isArray(outputs) && outputs.every(isString))) {
    throw fail('BAD_REQUEST', `BLS options.outputs: expected an array of output names`);
  }
  if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null)) {
    throw fail('BAD_PARAMETER', `BLS options.parameters: expected an object`);
  }
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0)) {
    throw fail('BAD_PARAMETER', `BLS options.timeoutMs: expected a number > 0, got ${timeoutMs}`);
  }
  return {
    ...(version !== undefined && { version: String(version) }),
    ...(outputs !== undefined && { outputs: outputs as string[] }),
    parameters: (parameters ?? {}) as Parameters,
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

const isString = (v: unknown): v is string => typeof v === 'string';
