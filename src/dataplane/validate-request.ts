// Parse, don't validate: a DecodedRequest (shaped like KServe v2, unchecked) becomes a
// ValidatedRequest (checked against one model version's signature), the only type a scheduler
// accepts. Every message names what was expected and what arrived, in Triton's wording where
// Triton has one. This file owns the order of the checks and the inline tensor data (JSON, typed,
// raw); an input's shape and size are checked by validate-input-shape.ts, tensors in client
// shared memory by validate-region-tensors.ts, parameters by validate-parameters.ts, the
// requested outputs by validate-outputs.ts.

import type { TenantTag } from '../scheduler/tenant-tag.js';
import type { AbortLike } from '../execution/abort-like.js';
import { datatypeInfo, isDatatype, type Datatype } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import { bytesElements, countBytesElements } from '../tensor/bytes-tensor.js';
import { checkRawTensor } from '../tensor/raw-tensor.js';
import {
  checkJsonCountsAgainstShapes,
  elementCountError,
  jsonTensorByteLength,
  writeJsonTensor,
} from '../protocol/json-tensor.js';
import { allocateRequestBytes, MOVE_MIN_BYTES } from '../memory/movable-buffers.js';
import type {
  DecodedInput,
  DecodedRequest,
  RawBinaryRequest,
  TypedJsonData,
} from '../protocol/inference-request.js';
import { reshape } from '../tensor/shape.js';
import { inputLabel, type TensorLabel } from '../tensor/tensor-label.js';
import {
  brandValidated,
  type ValidatedInput,
  type ValidatedRequest,
} from '../scheduler/validated-request.js';
import {
  fullDims,
  type ModelSignature,
  type TensorSignature,
} from '../repository/model-signature.js';
import { rawBinaryRequest } from './raw-binary-request.js';
import { checkInputLimit, checkShape, elementCount } from './validate-input-shape.js';
import { refuseRepeatedNames } from '../protocol/tensor-names.js';
import type { StageTrace } from '../trace/stage-trace.js';
import type { RegionRegistry } from '../shared-memory/region-registry.js';
import { RegionsOf, regionInput } from './validate-region-tensors.js';
import { nonNegativeInt, requestSequence } from './validate-parameters.js';
import { validateOutputs } from './validate-outputs.js';

export interface ValidationContext {
  readonly signal: AbortLike;
  readonly arrivalNs: number;
  /** Upper bound on the bytes all inputs may occupy in shared memory (--http-max-input-size). */
  readonly maxInputBytes: number;
  /** --trace-stages: carried on the validated request so the scheduler stamps its stages. */
  readonly trace?: StageTrace;
  /** Client shared-memory registrations (--allow-client-shm); absent: tensors naming one are refused. */
  readonly sharedMemory?: RegionRegistry;
  /** The tenant the request was admitted for (--tenant-header), carried to the scheduler. */
  readonly tenant?: TenantTag;
}

/**
 * Checks `request` against `sig`. A raw binary request is first resolved against the model's one
 * input here, where the model is known, so every transport enters the data plane once.
 */
export function validateRequest(
  sig: ModelSignature,
  request: DecodedRequest | RawBinaryRequest,
  ctx: ValidationContext,
): ValidatedRequest {
  const shm = new RegionsOf(ctx.sharedMemory);
  try {
    return validateWith(sig, request, ctx, shm);
  } catch (e) {
    // Regions acquired before the fault are let go: the request never reaches a queue.
    shm.regions?.releaseAll();
    throw e;
  }
}

function validateWith(
  sig: ModelSignature,
  request: DecodedRequest | RawBinaryRequest,
  ctx: ValidationContext,
  shm: RegionsOf,
): ValidatedRequest {
  const req = 'rawBinary' in request ? rawBinaryRequest(sig, request.rawBinary) : request;
  const params = req.parameters;
  const sequence = requestSequence(sig, params);
  const priority = nonNegativeInt(params, 'priority');
  const timeoutUs = nonNegativeInt(params, 'timeout');

  refuseRepeatedNames(
    req.inputs.map((i) => i.name),
    'inputs',
  );
  checkJsonCountsAgainstShapes(req.inputs, ctx.maxInputBytes);
  const missing = sig.requiredInputs.filter((n) => !req.inputs.some((i) => i.name === n));
  if (missing.length > 0) {
    throw fail(
      'MISSING_INPUT',
      `expected ${sig.requiredInputs.length} inputs but got ${req.inputs.length} inputs for ` +
        `model '${sig.name}'. Got input(s) ${list(req.inputs.map((i) => i.name))}, but missing ` +
        `required input(s) ${list(missing)}. Please provide all required input(s).`,
    );
  }

  let batchSize = sig.maxBatchSize > 0 ? -1 : 1;
  let totalBytes = 0;
  const inputs: ValidatedInput[] = [];
  for (const input of req.inputs) {
    const t = sig.inputs.get(input.name);
    if (t === undefined) {
      throw fail(
        'UNKNOWN_INPUT',
        `unexpected inference input '${input.name}' for model '${sig.name}'`,
      );
    }
    const v = validateInput(sig, t, input, ctx.maxInputBytes - totalBytes, shm);
    if (sig.maxBatchSize > 0) {
      const b = v.requestShape[0] as number;
      if (batchSize === -1) batchSize = b;
      else if (b !== batchSize) {
        throw fail(
          'BAD_SHAPE',
          `input '${input.name}' has batch size ${b}, but earlier inputs have batch size ` +
            `${batchSize}: every input of one request must have the same batch size`,
        );
      }
    }
    totalBytes += v.byteLength;
    inputs.push(v);
  }

  if (sequence !== undefined && batchSize !== 1) {
    throw fail(
      'BAD_BATCH_SIZE',
      `inference request to model '${sig.name}' must specify batch-size 1 due to requirements of sequence batcher, got batch size ${batchSize}`,
    );
  }

  return brandValidated({
    model: sig.name,
    version: sig.version,
    ...(req.id !== undefined ? { id: req.id } : {}),
    batchSize,
    inputs,
    outputs: validateOutputs(sig, req, shm),
    priority,
    timeoutUs,
    ...(sequence !== undefined && { sequence }),
    signal: ctx.signal,
    arrivalNs: ctx.arrivalNs,
    ...(ctx.trace !== undefined && { trace: ctx.trace }),
    ...(shm.regions !== undefined && { regions: shm.regions }),
    ...(ctx.tenant !== undefined && { tenant: ctx.tenant }),
  });
}

function validateInput(
  sig: ModelSignature,
  t: TensorSignature,
  input: DecodedInput,
  bytesLeft: number,
  shm: RegionsOf,
): ValidatedInput {
  if (!isDatatype(input.datatype)) {
    throw fail(
      'BAD_DATATYPE',
      `inference input '${input.name}' has unknown datatype ${JSON.stringify(String(input.datatype)).slice(0, 40)}; ` +
        `model '${sig.name}' expects '${t.datatype}'`,
    );
  }
  if (input.datatype !== t.datatype) {
    throw fail(
      'BAD_DATATYPE',
      `inference input '${input.name}' data-type is '${input.datatype}', but model ` +
        `'${sig.name}' expects '${t.datatype}'`,
    );
  }
  const expected = fullDims(sig, t);
  const shape = checkShape(input, expected, sig);
  const info = datatypeInfo(t.datatype);
  const count = elementCount(input.name, shape, t.datatype, info.byteSize, bytesLeft);
  const label = inputLabel(input.name, shape);
  const modelShape =
    t.reshape === undefined ? shape : reshape(shape, t.reshape, sig.maxBatchSize > 0);
  let data = input.data;
  if (data.kind === 'shm') {
    const tensor = {
      model: sig.name,
      name: input.name,
      datatype: t.datatype,
      elementBytes: info.byteSize,
      count,
      shape: modelShape,
      requestShape: shape,
    };
    const read = regionInput(shm, tensor, data, bytesLeft);
    // BYTES come back as the region's bytes, checked below as raw data.
    if (!(read instanceof Uint8Array)) return read;
    data = { kind: 'raw', bytes: read };
  }
  if (data.kind === 'raw') {
    const bytes = data.bytes;
    // Fixed-size raw data is bounded by the shape check above; BYTES elements have no fixed size,
    // so their total is checked here, before the walk (a WebSocket frame may be larger than
    // --http-max-input-size).
    if (info.byteSize === 0) checkInputLimit(input.name, bytes.byteLength, bytesLeft);
    checkRawInputSize(sig.name, input.name, bytes, info.byteSize, count);
    checkRawTensor(bytes, t.datatype, count, label);
    if (info.byteSize === 0 && !sig.bytesMayHoldNul) {
      rejectNul(input.name, bytesElements(bytes, label));
    }
    return bytesInput(input.name, t.datatype, modelShape, shape, bytes);
  }
  if (data.kind === 'typed')
    return typedInput(sig, t, input, data, count, label, bytesLeft, modelShape, shape);
  const values = data.values;
  const byteLength = jsonTensorByteLength(values, t.datatype, count, label);
  if (info.byteSize === 0 && !sig.bytesMayHoldNul) rejectNul(input.name, jsonStrings(values));
  checkInputLimit(input.name, byteLength, bytesLeft);
  // Converted here, once, rather than by `write`: every element's kind and range is then checked
  // before the request is queued (a bad element found while the batcher copies a batch would fail
  // the requests batched with it), and `write` is one memcpy instead of a second walk over the
  // JSON array. The typed copy is far smaller than the parsed JS array it comes from.
  // Large: the request's own movable memory, which its worker may take without a copy.
  const bytes =
    byteLength >= MOVE_MIN_BYTES ? allocateRequestBytes(byteLength) : new Uint8Array(byteLength);
  writeJsonTensor(values, t.datatype, count, bytes, label);
  return bytesInput(input.name, t.datatype, modelShape, shape, bytes);
}

/** A validated input whose data is `bytes`, laid out as the model takes it. */
function bytesInput(
  name: string,
  datatype: Datatype,
  modelShape: readonly number[],
  requestShape: readonly number[],
  bytes: Uint8Array,
): ValidatedInput {
  return {
    name,
    datatype,
    shape: modelShape,
    requestShape,
    byteLength: bytes.byteLength,
    write: (target) => target.set(bytes),
    bytes,
  };
}

/**
 * JSON data the HTTP decoder already typed (inference-request.ts, TypedJsonData): the checks the
 * JSON path makes that its decoder could not, in the same order and words: the element count
 * against the shape, NUL bytes in BYTES elements, the size limit.
 */
function typedInput(
  sig: ModelSignature,
  t: TensorSignature,
  input: DecodedInput,
  data: TypedJsonData,
  count: number,
  label: TensorLabel,
  bytesLeft: number,
  modelShape: readonly number[],
  shape: readonly number[],
): ValidatedInput {
  if (data.datatype !== t.datatype) {
    throw fail('INTERNAL', `input '${input.name}': typed as ${data.datatype}, not ${t.datatype}`);
  }
  if (data.count !== count) throw elementCountError(count, data.count);
  const bytes = data.bytes;
  if (datatypeInfo(t.datatype).byteSize === 0 && !sig.bytesMayHoldNul) {
    rejectNul(input.name, bytesElements(bytes, label));
  }
  checkInputLimit(input.name, bytes.byteLength, bytesLeft);
  return bytesInput(input.name, t.datatype, modelShape, shape, bytes);
}

/**
 * A raw input whose size does not fit its shape, in Triton core's words (infer_request.cc): the
 * byte size for fixed-size types, the element count for well-formed BYTES data. Malformed BYTES
 * data is left to checkRawTensor, which names the broken element.
 */
function checkRawInputSize(
  model: string,
  name: string,
  bytes: Uint8Array,
  elementBytes: number,
  count: number,
): void {
  const where = `for inference input '${name}' for model '${model}'`;
  if (elementBytes > 0) {
    if (bytes.byteLength !== count * elementBytes) {
      throw fail(
        'BYTE_SIZE_MISMATCH',
        `input byte size mismatch for input '${name}' for model '${model}'. Expected ` +
          `${count * elementBytes}, got ${bytes.byteLength}`,
      );
    }
    return;
  }
  let found: number;
  try {
    found = countBytesElements(bytes);
  } catch {
    return;
  }
  // Triton stops at the first element past the count, so it reports count + 1.
  if (found > count) {
    throw fail(
      'BAD_TENSOR_DATA',
      `unexpected number of string elements ${count + 1} ${where}, expecting ${count}`,
    );
  }
  if (found < count) {
    throw fail('BAD_TENSOR_DATA', `expected ${count} string elements ${where}, got ${found}`);
  }
}

/**
 * onnxruntime-node cuts string tensor elements at the first NUL byte on their way into the model
 * (measured with 1.30: "a\0b" arrives as "a"), so such an input would get a silently wrong answer.
 * Refuse it instead, naming the element.
 */
function rejectNul(name: string, elements: Iterable<Uint8Array | string>): void {
  let i = 0;
  for (const e of elements) {
    if (typeof e === 'string' ? e.includes('\0') : e.includes(0)) {
      throw fail(
        'BAD_TENSOR_DATA',
        `input '${name}': BYTES element ${i} contains a NUL byte, which ONNX Runtime string ` +
          `tensors cannot carry (onnxruntime-node truncates the element there)`,
      );
    }
    i++;
  }
}

/** The strings of a (possibly nested) JSON BYTES `data` array; already size-checked. */
function* jsonStrings(values: unknown): Generator<string> {
  if (typeof values === 'string') yield values;
  else if (Array.isArray(values)) for (const v of values) yield* jsonStrings(v);
}

function list(names: readonly string[]): string {
  return `[${names.map((n) => `'${n}'`).join(', ')}]`;
}
