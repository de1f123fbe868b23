// Memory that may be moved to a worker thread instead of copied: the ArrayBuffers the server
// allocated itself for one request (its HTTP body, the typed arrays JSON data is decoded into) and
// nothing else. A lone large request hands them to its worker by transfer (postMessage's transfer
// list), so its tensor bytes are never copied into a shared block, nor, on Node 20, into the
// worker's own memory (onnxruntime-node accepts a worker-owned ArrayBuffer where it refuses shared
// memory). That takes two of the five copies a large request used to cost (docs/operations.md,
// "Memory").
//
// Why a registry rather than "any ArrayBuffer": transferring detaches the buffer in this thread, so
// it is only safe for memory nobody else holds. A WebSocket library's message buffer, Node's pooled
// 8 KiB slabs or a buffer a decompressor returned may be shared with other code; only what is
// registered here is known to belong to one request alone.

import { SLOT_ALIGNMENT } from './byte-size.js';

/**
 * Below this many input bytes a request's tensors are copied into a shared block as before: the
 * copy costs microseconds, and the small-request path stays exactly what was measured. At 1 MiB a
 * copy costs about as much as the transfer's bookkeeping is worth, and memory starts to matter.
 */
export const MOVE_MIN_BYTES = 1024 * 1024;

const movable = new WeakSet<ArrayBuffer>();

/** Whether `buffer` was allocated here for one request, and so may be transferred away. */
export function isMovable(buffer: ArrayBufferLike): buffer is ArrayBuffer {
  return buffer instanceof ArrayBuffer && movable.has(buffer);
}

/**
 * `bytes` bytes of uninitialised memory in an ArrayBuffer of their own, registered as movable when
 * at least MOVE_MIN_BYTES (a small one is never moved, and skipping the registry keeps the small
 * path as it was). `alignAt`: the view starts `pad` bytes into its buffer, chosen so that its byte
 * `alignAt` lands on a 64-byte boundary (a binary request's tensor bytes follow a JSON header of
 * known length: aligned, they can be viewed as a Float32Array or Float64Array in place).
 */
export function allocateRequestBytes(bytes: number, alignAt = 0): Uint8Array {
  const pad = (SLOT_ALIGNMENT - (alignAt % SLOT_ALIGNMENT)) % SLOT_ALIGNMENT;
  // allocUnsafeSlow: every byte will be overwritten, so zero-filling is wasted work, and a
  // non-pooled buffer owns its whole ArrayBuffer (never a slice of Node's shared pool, which must
  // never be moved).
  const slow = Buffer.allocUnsafeSlow(pad + bytes);
  if (bytes >= MOVE_MIN_BYTES) movable.add(slow.buffer);
  // Re-wrapped as a plain Uint8Array: Buffer's slice() returns a view where Uint8Array's copies,
  // and codecs downstream are written against Uint8Array semantics.
  return new Uint8Array(slow.buffer, slow.byteOffset + pad, bytes);
}
