// Tensor bytes across the thread boundary. Structured clone copies the whole ArrayBuffer under a
// view, so a request's inputs (views of one request body) would each copy the body: instead each
// direction packs the bytes that are not already shared into one fresh ArrayBuffer and transfers
// it. A view of a SharedArrayBuffer crosses as it is (the receiver shares it, nothing is copied):
// a finished run's outputs are such views, and nobody writes to them again.
//
// What arrives is also made safe again: `parameters` objects come out of structured clone with
// Object.prototype, and the decoders' contract is a null-prototype frozen copy (protocol/parameters.ts).

import type {
  DecodedInput,
  DecodedOutput,
  DecodedRequest,
  InferenceResponse,
  Parameters,
  RawBinaryRequest,
  TensorData,
} from '../protocol/inference-request.js';

/** A message value and the buffers to transfer with it. */
export interface Packed<T> {
  readonly value: T;
  readonly transfer: ArrayBuffer[];
}

/** Copies every non-shared view into one new ArrayBuffer; returns the new views, in order. */
function pack(parts: readonly (Uint8Array | undefined)[]): {
  views: (Uint8Array | undefined)[];
  transfer: ArrayBuffer[];
} {
  let total = 0;
  for (const p of parts) if (p !== undefined && !isShared(p)) total += p.byteLength;
  if (total === 0) return { views: [...parts], transfer: [] };
  const buffer = new ArrayBuffer(total);
  const target = new Uint8Array(buffer);
  let at = 0;
  const views = parts.map((p) => {
    if (p === undefined || isShared(p)) return p;
    target.set(p, at);
    const view = new Uint8Array(buffer, at, p.byteLength);
    at += p.byteLength;
    return view;
  });
  return { views, transfer: [buffer] };
}

function isShared(view: Uint8Array): boolean {
  return view.buffer instanceof SharedArrayBuffer;
}

function dataBytes(data: TensorData): Uint8Array | undefined {
  // A shared-memory tensor crosses as its region reference: main reads the region.
  return data.kind === 'json' || data.kind === 'shm' ? undefined : data.bytes;
}

function withBytes(input: DecodedInput, bytes: Uint8Array | undefined): DecodedInput {
  if (bytes === undefined || input.data.kind === 'json' || input.data.kind === 'shm') return input;
  return { ...input, data: { ...input.data, bytes } };
}

/** A decoded request, ready to post from a front-end thread. */
export function packRequest(
  request: DecodedRequest | RawBinaryRequest,
): Packed<DecodedRequest | RawBinaryRequest> {
  if ('rawBinary' in request) {
    const { views, transfer } = pack([request.rawBinary]);
    return { value: { rawBinary: views[0] as Uint8Array }, transfer };
  }
  const { views, transfer } = pack(request.inputs.map((i) => dataBytes(i.data)));
  return {
    value: { ...request, inputs: request.inputs.map((input, k) => withBytes(input, views[k])) },
    transfer,
  };
}

/** A request as it arrived on the main thread, with its parameters made null-prototype again. */
export function unpackRequest(
  request: DecodedRequest | RawBinaryRequest,
): DecodedRequest | RawBinaryRequest {
  if ('rawBinary' in request) return request;
  const outputs = request.outputs?.map((o): DecodedOutput => ({
    ...o,
    parameters: safeParameters(o.parameters),
  }));
  return {
    ...request,
    parameters: safeParameters(request.parameters),
    inputs: request.inputs.map((i) => ({ ...i, parameters: safeParameters(i.parameters) })),
    ...(outputs !== undefined ? { outputs } : {}),
  };
}

/** A response, ready to post from the main thread. */
export function packResponse(response: InferenceResponse): Packed<InferenceResponse> {
  const { views, transfer } = pack(response.outputs.map((o) => o.data));
  if (transfer.length === 0) return { value: response, transfer };
  return {
    value: {
      ...response,
      outputs: response.outputs.map((o, k) => ({ ...o, data: views[k] as Uint8Array })),
    },
    transfer,
  };
}

function safeParameters(p: Parameters | undefined): Parameters {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, never>, p));
}
