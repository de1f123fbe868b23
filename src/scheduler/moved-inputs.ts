// A lone large request's inputs as they are: descriptors of the request's own memory, moved to the
// worker, instead of a copy into a fresh shared block. Pure: decides and describes; the batcher
// passes the buffers as the run's transfer list.
//
// Only for a run of one request (a batch of several must be gathered into one tensor anyway), and
// only when every input's bytes are movable (src/memory/movable-buffers.ts: the request's own body
// or decoded tensor, at least MOVE_MIN_BYTES in all) and aligned for their TypedArray. Anything else
// takes the copy, as before. Once moved, the request's buffers are detached here: nothing reads a
// request's input bytes after its run has started.

import { datatypeInfo } from '../tensor/datatypes.js';
import { isMovable, MOVE_MIN_BYTES } from '../memory/movable-buffers.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import type { ValidatedInput } from './validated-request.js';

export interface MovedInputs {
  readonly descriptors: readonly TensorDescriptor[];
  /** Each distinct buffer once (a binary request's inputs are views of one body). */
  readonly transfer: readonly ArrayBuffer[];
}

/** The inputs as descriptors of their own buffers, or undefined when they must be copied. */
export function movedInputs(inputs: readonly ValidatedInput[]): MovedInputs | undefined {
  let total = 0;
  for (const input of inputs) total += input.byteLength;
  if (total < MOVE_MIN_BYTES) return undefined;
  const descriptors: TensorDescriptor[] = [];
  const transfer: ArrayBuffer[] = [];
  for (const input of inputs) {
    const bytes = input.bytes;
    if (bytes === undefined || bytes.byteLength !== input.byteLength) return undefined;
    const buffer = bytes.buffer;
    if (!isMovable(buffer)) return undefined;
    const size = datatypeInfo(input.datatype).byteSize;
    if (size > 0 && bytes.byteOffset % size !== 0) return undefined;
    if (!transfer.includes(buffer)) transfer.push(buffer);
    descriptors.push({
      name: input.name,
      datatype: input.datatype,
      shape: input.shape,
      buffer,
      byteOffset: bytes.byteOffset,
      byteLength: bytes.byteLength,
    });
  }
  return { descriptors, transfer };
}
