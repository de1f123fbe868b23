// An input's shape and size: every dimension an integer >= 0, the element count and byte size
// within int64, the batch size and dims against the model's, and the bytes against what is left
// under the input size limit (--http-max-input-size). Shared by inline and shared-memory inputs.

import { fail } from '../errors.js';
import type { DecodedInput } from '../protocol/inference-request.js';
import type { ModelSignature } from '../repository/model-signature.js';
import { datatypeInfo, isDatatype, type Datatype } from '../tensor/datatypes.js';
import { shapeText } from '../tensor/shape.js';

/** Checks each dim is an integer >= 0 and the shape matches the config (-1 matches any). */
export function checkShape(
  input: DecodedInput,
  expected: readonly number[],
  sig: ModelSignature,
): number[] {
  const raw = input.shape;
  const shape: number[] = [];
  for (const d of raw) {
    // Integers past 2^53 are let through to the overflow check below, which words them as Triton
    // does; it refuses every shape holding one unless another dimension is 0.
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0) {
      throw fail(
        'BAD_SHAPE',
        `input '${input.name}': every shape dimension must be an integer >= 0, got ` +
          `${JSON.stringify(raw).slice(0, 200)}`,
      );
    }
    shape.push(d);
  }
  refuseOverflow(input, shape);
  if (sig.maxBatchSize > 0) {
    const batch = shape[0];
    if (batch !== undefined && batch > sig.maxBatchSize) {
      throw fail(
        'BAD_BATCH_SIZE',
        `inference request batch-size must be <= ${sig.maxBatchSize} for '${sig.name}', got ${batch}`,
      );
    }
  }
  const matches =
    shape.length === expected.length && expected.every((e, i) => e === -1 || e === shape[i]);
  if (!matches) {
    throw fail(
      'BAD_SHAPE',
      `unexpected shape for input '${input.name}' for model '${sig.name}'. Expected ` +
        `${shapeText(expected)}, got ${shapeText(shape)}`,
    );
  }
  return shape;
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Refuses, in Triton's words (http_server.cc), a shape whose element count or byte size does not fit
 * in an int64. Counted exactly with BigInt: the dimensions may be past 2^53.
 */
function refuseOverflow(input: DecodedInput, shape: readonly number[]): void {
  const count = shape.reduce((a, d) => a * BigInt(d), 1n);
  if (count > INT64_MAX) {
    throw fail(
      'BAD_SHAPE',
      `invalid shape for input '${input.name}': shape [${shape.map((d) => BigInt(d)).join(',')}] ` +
        `causes total element count to exceed maximum size of ${INT64_MAX}`,
    );
  }
  const size = isDatatype(input.datatype) ? datatypeInfo(input.datatype).byteSize : 0;
  if (size > 1 && count * BigInt(size) > INT64_MAX) {
    throw fail(
      'BAD_SHAPE',
      `byte size overflow for input '${input.name}': element count (${count}) * data type size ` +
        `(${size}) exceeds maximum allowed size (${INT64_MAX})`,
    );
  }
}

/**
 * The element count of `shape`, with overflow checked against what the byte budget could ever
 * hold: a shape like [16, 2^60] is refused here, before anything is allocated. BYTES elements
 * count 4 bytes each, their length prefix.
 */
export function elementCount(
  name: string,
  shape: readonly number[],
  datatype: Datatype,
  elementBytes: number,
  bytesLeft: number,
): number {
  const minElementBytes = elementBytes === 0 ? 4 : elementBytes;
  let count = 1;
  for (const d of shape) {
    count *= d;
    if (count * minElementBytes > bytesLeft) {
      throw fail(
        'BAD_SHAPE',
        `input '${name}' with shape ${shapeText(shape)} ${datatype} needs more than ` +
          `${bytesLeft} bytes, the space left under the input size limit (--http-max-input-size)`,
      );
    }
  }
  return count;
}

export function checkInputLimit(name: string, byteLength: number, bytesLeft: number): void {
  if (byteLength > bytesLeft) {
    throw fail(
      'BAD_TENSOR_DATA',
      `input '${name}' needs ${byteLength} bytes, more than the ${bytesLeft} left under ` +
        `the input size limit (--http-max-input-size)`,
    );
  }
}
