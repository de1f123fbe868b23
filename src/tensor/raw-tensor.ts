// Checks raw tensor bytes (binary tensor extension, raw binary requests, WebSocket `bin`) against
// the element count their shape implies, before anything is copied into shared memory.

import { DATATYPE_TABLE, type Datatype } from './datatypes.js';
import { fail } from '../errors.js';
import { checkBytesTensor } from './bytes-tensor.js';
import { forShape, labelPrefix, type TensorLabel } from './tensor-label.js';

/**
 * Fixed-size types: the byte length must be exactly count * element size (BYTE_SIZE_MISMATCH
 * "input INPUT0: expected 64 bytes for shape [1,16] FP32, got 68"). BYTES: exactly `count`
 * length-prefixed elements that consume every byte (BAD_TENSOR_DATA naming the broken element or
 * both counts). NUL bytes inside an element are data.
 */
export function checkRawTensor(
  bytes: Uint8Array,
  datatype: Datatype,
  count: number,
  label?: TensorLabel,
): void {
  const info = DATATYPE_TABLE[datatype];
  if (info.name === 'BYTES') {
    checkBytesTensor(bytes, count, label);
    return;
  }
  const expected = count * info.byteSize;
  if (bytes.byteLength !== expected) {
    throw fail(
      'BYTE_SIZE_MISMATCH',
      `${labelPrefix(label)}expected ${expected} bytes${forShape(label, datatype)}, got ${bytes.byteLength}`,
    );
  }
}
