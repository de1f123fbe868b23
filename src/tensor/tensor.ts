// The tensor descriptor: the one form of tensor that crosses a thread boundary, shared by the data
// plane, the schedulers and the workers.

import type { Datatype } from './datatypes.js';

/**
 * A tensor whose bytes live in a SharedArrayBuffer, or in an ArrayBuffer that is moved (transferred,
 * not copied) to the receiving thread: a large request's own body or an ORT output handed back
 * (src/memory/movable-buffers.ts says which). This is the only form of tensor that crosses a thread
 * boundary: the receiver builds its own view from `buffer`, `byteOffset` and `byteLength`.
 * Raw little-endian row-major bytes; BYTES tensors hold 4-byte little-endian length-prefixed
 * elements (the binary tensor extension's layout).
 */
export interface TensorDescriptor {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly buffer: SharedArrayBuffer | ArrayBuffer;
  readonly byteOffset: number;
  readonly byteLength: number;
}
