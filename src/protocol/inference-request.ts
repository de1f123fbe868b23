// What the transport codecs produce and consume. A decoded request is only *shaped* right (it is a
// KServe v2 request); it has not been checked against any model. `dataplane/validate-request.ts`
// turns it into a `ValidatedRequest`, the only type a scheduler accepts.

import type { Datatype } from '../tensor/datatypes.js';

export type ParameterValue = string | number | boolean;
export type Parameters = Readonly<Record<string, ParameterValue>>;

/**
 * Tensor data as it arrived:
 * - `json`: the `data` member of a JSON input, as parsed (nested or flat arrays; not yet checked).
 * - `typed`: see TypedJsonData.
 * - `raw`: little-endian row-major bytes (binary tensor extension, WebSocket `bin`). For BYTES, the
 *   4-byte little-endian length-prefixed element layout. `bytes` may be a view into the request
 *   body: it must be copied (once, into shared memory) before the body is released.
 */
export type TensorData =
  | { readonly kind: 'json'; readonly values: unknown }
  | { readonly kind: 'raw'; readonly bytes: Uint8Array }
  | TypedJsonData
  | SharedMemoryData;

/**
 * The tensor's bytes are in a registered shared-memory region (Triton's shared-memory extension,
 * protocol/shm-parameters.ts): `byteSize` bytes at `offset` in the region named `region`. Resolved
 * against the registry, and read, only by validation and the copy into the batch.
 */
export interface SharedMemoryData {
  readonly kind: 'shm';
  readonly region: string;
  readonly offset: number;
  readonly byteSize: number;
}

/**
 * A JSON `data` array the HTTP decoder already wrote into its declared datatype's layout
 * (http/json-body-scan.ts): regular nesting, every element of the right kind and in range.
 * Validation still checks the datatype against the model and `count` against the shape.
 */
export interface TypedJsonData {
  readonly kind: 'typed';
  readonly datatype: Datatype;
  /** Elements the nested array held. */
  readonly count: number;
  readonly bytes: Uint8Array;
}

export interface DecodedInput {
  readonly name: string;
  /** As sent; checked against the datatype table and the model during validation. */
  readonly datatype: string;
  /** As sent; each element checked to be a safe integer >= 0 during validation. */
  readonly shape: readonly unknown[];
  readonly parameters: Parameters;
  readonly data: TensorData;
}

export interface DecodedOutput {
  readonly name: string;
  readonly parameters: Parameters;
}

/**
 * More inputs or outputs than this is refused by every transport's decoder before any of them is
 * read (a request for 100,000 outputs crashed Triton: CVE-2026-24146). No ONNX model served here
 * comes close.
 */
export const MAX_TENSORS = 1024;

export interface DecodedRequest {
  readonly id?: string;
  readonly parameters: Parameters;
  readonly inputs: readonly DecodedInput[];
  /** Absent: every model output, with default settings. */
  readonly outputs?: readonly DecodedOutput[];
}

/**
 * Triton's raw binary request (HTTP `Inference-Header-Content-Length: 0`): the body is the bytes of
 * the model's only input, with no JSON at all. Which input that is, and its shape, depend on the
 * model, so validation resolves it into a DecodedRequest.
 */
export interface RawBinaryRequest {
  readonly rawBinary: Uint8Array;
}

/** One output of a finished inference, ready for an encoder. */
export interface ResponseOutput {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  /** Raw bytes (BYTES: length-prefixed elements); a view of shared memory, never copied per request. */
  readonly data: Uint8Array;
  /** The client asked for this output as binary (binary tensor extension). */
  readonly binary: boolean;
  /**
   * The output was written into a shared-memory region (its `parameters` say which): encoders send
   * its name, datatype, shape and parameters, and no data.
   */
  readonly inSharedMemory?: true;
  readonly parameters?: Parameters;
}

export interface InferenceResponse {
  readonly model_name: string;
  readonly model_version: string;
  readonly id?: string;
  readonly parameters?: Parameters;
  readonly outputs: readonly ResponseOutput[];
}
