// The model configs the validation golden cases run against, as config.pbtxt text: each goes
// through the config pipeline and `modelSignature`, as the loader prepares what validation sees.

import type { ModelSignature } from '../../../src/repository/model-signature.js';
import { signatureFromText } from '../repository/model-version-fixture.js';

const TEXT = {
  /** Triton's quick-start model: two INT32 [-1,16] inputs, batching up to 8. */
  simple: `
    max_batch_size: 8
    input [
      { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
      { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
    ]
    output [
      { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
      { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
    ]`,
  /** No batching: dims are the whole shape. */
  nobatch: `
    max_batch_size: 0
    input { name: "x" data_type: TYPE_FP32 dims: [ 2, -1 ] }
    output { name: "y" data_type: TYPE_FP32 dims: [ -1 ] }`,
  /** One required and one optional input. */
  optional: `
    max_batch_size: 0
    input [
      { name: "a" data_type: TYPE_INT64 dims: [ 1 ] },
      { name: "b" data_type: TYPE_INT64 dims: [ 1 ] optional: true }
    ]
    output { name: "out" data_type: TYPE_INT64 dims: [ 1 ] }`,
  /** Strings: BYTES on the wire. */
  strings: `
    max_batch_size: 4
    input { name: "s" data_type: TYPE_STRING dims: [ -1 ] }
    output { name: "out" data_type: TYPE_STRING dims: [ -1 ] }`,
  /** One BYTES element per batch item: the shape Triton requires of a raw binary BYTES input. */
  string1: `
    max_batch_size: 4
    input { name: "s" data_type: TYPE_STRING dims: [ 1 ] }
    output { name: "out" data_type: TYPE_STRING dims: [ -1 ] }`,
  /** Two variable dimensions: a raw binary body cannot say how to split its bytes. */
  matrix: `
    max_batch_size: 4
    input { name: "m" data_type: TYPE_FP32 dims: [ -1, -1 ] }
    output { name: "out" data_type: TYPE_FP32 dims: [ -1, -1 ] }`,
  /** The model takes [2,2] for [4], [2,1,-1] for [2,-1], a scalar for [1] (after the batch dim). */
  reshape: `
    max_batch_size: 2
    input [
      { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape: { shape: [ 2, 2 ] } },
      { name: "v" data_type: TYPE_FP32 dims: [ 2, -1 ] reshape: { shape: [ 2, 1, -1 ] } },
      { name: "one" data_type: TYPE_FP32 dims: [ 1 ] reshape: { shape: [ ] } }
    ]
    output { name: "y" data_type: TYPE_FP32 dims: [ 4 ] }`,
  /**
   * One optional [-1] input per datatype a model can take (not BF16: onnxruntime-node cannot run
   * it, so the config pipeline refuses it), no batching: element rules one at a time.
   */
  types: `
    max_batch_size: 0
    input [
      { name: "bool" data_type: TYPE_BOOL dims: [ -1 ] optional: true },
      { name: "u8" data_type: TYPE_UINT8 dims: [ -1 ] optional: true },
      { name: "u16" data_type: TYPE_UINT16 dims: [ -1 ] optional: true },
      { name: "u32" data_type: TYPE_UINT32 dims: [ -1 ] optional: true },
      { name: "u64" data_type: TYPE_UINT64 dims: [ -1 ] optional: true },
      { name: "i8" data_type: TYPE_INT8 dims: [ -1 ] optional: true },
      { name: "i16" data_type: TYPE_INT16 dims: [ -1 ] optional: true },
      { name: "i32" data_type: TYPE_INT32 dims: [ -1 ] optional: true },
      { name: "i64" data_type: TYPE_INT64 dims: [ -1 ] optional: true },
      { name: "f16" data_type: TYPE_FP16 dims: [ -1 ] optional: true },
      { name: "f32" data_type: TYPE_FP32 dims: [ -1 ] optional: true },
      { name: "f64" data_type: TYPE_FP64 dims: [ -1 ] optional: true },
      { name: "str" data_type: TYPE_STRING dims: [ -1 ] optional: true }
    ]
    output { name: "out" data_type: TYPE_FP32 dims: [ -1 ] }`,
  /** Strings for a JavaScript model, which gets the bytes as sent (NUL included). */
  jsstrings: `
    backend: "javascript"
    max_batch_size: 4
    input { name: "s" data_type: TYPE_STRING dims: [ -1 ] }
    output { name: "out" data_type: TYPE_STRING dims: [ -1 ] }`,
  /** A sequence model (Triton's sequence extension): every request names its sequence. */
  sequence: `
    max_batch_size: 4
    input { name: "x" data_type: TYPE_FP32 dims: [ 2 ] }
    output { name: "y" data_type: TYPE_FP32 dims: [ 2 ] }
    sequence_batching { }`,
} as const;

export type ModelName = keyof typeof TEXT;

export const MODELS: Readonly<Record<ModelName, ModelSignature>> = Object.freeze(
  Object.fromEntries(
    Object.entries(TEXT).map(([name, text]) => [name, signatureFromText(text, name, 1)]),
  ) as Record<ModelName, ModelSignature>,
);
