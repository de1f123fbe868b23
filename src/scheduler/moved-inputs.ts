// A lone large request's inputs as they are: descriptors of the request's own memory, moved to the
// worker, instead of a copy into a fresh shared block. Decides and describes; the batcher passes
// the buffers as the run's transfer list.
//
// Only for a run of one request (a batch of several must be gathered into one tensor anyway), and
// only when every input's bytes are movable (src/memory/movable-buffers.ts: the request's own body
// or decoded tensor, at least MOVE_MIN_BYTES in all) and aligned for their TypedArray, or are
// read from a shared-memory region at run time (no `bytes`): such an input is read here into an
// ArrayBuffer of its own, which moves. That read is the one copy the gather would have made into
// the block, and on Node 20 it also spares the worker its copy of the block into worker-owned
// memory (onnxruntime-node refuses SharedArrayBuffer views there), so a large region input costs
// one copy before ONNX Runtime rather than two. Anything else takes the gather, as before. Once
// moved, the request's buffers are detached here: nothing reads a request's input bytes after its
// run has started.

import { datatypeInfo } from '../tensor/datatypes.js';
import { isMovable, MOVE_MIN_BYTES } from '../memory/movable-buffers.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import type { ValidatedInput } from './validated-request.js';

export interface MovedInputs {
  readonly descriptors: readonly TensorDescriptor[];
  /** Each distinct buffer once (a binary request's inputs are views of one body). */
  readonly transfer: readonly ArrayBuffer[];
}

/**
 * The inputs as descriptors of their own buffers, or undefined when they must be copied. Throws
 * what a region input's read throws (a region shrunk since validation): that request alone fails,
 * as it would in the gather.
 */
export function movedInputs(inputs: readonly ValidatedInput[]): MovedInputs | undefined {
  let total = 0;
  for (const input of inputs) total += input.byteLength;
  if (total < MOVE_MIN_BYTES) return undefined;
  // Decide before reading anything: a region is read only when the run will move it.
  for (const input of inputs) {
    const bytes = input.bytes;
    if (bytes === undefined) continue; // read from its region below
    if (bytes.byteLength !== input.byteLength || !isMovable(bytes.buffer)) return undefined;
    const size = datatypeInfo(input.datatype).byteSize;
    if (size > 0 && bytes.byteOffset % size !== 0) return undefined;
  }
  const descriptors: TensorDescriptor[] = [];
  const transfer: ArrayBuffer[] = [];
  for (const input of inputs) {
    const bytes = input.bytes ?? readOwn(input);
    const buffer = bytes.buffer as ArrayBuffer;
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

/**
 * An input without `bytes` (a shared-memory region's) read into an ArrayBuffer allocated for it
 * alone, so nothing else holds it and it may move. Offset 0 is aligned for every TypedArray.
 */
function readOwn(input: ValidatedInput): Uint8Array {
  const own = new Uint8Array(input.byteLength);
  input.write(own);
  return own;
}
