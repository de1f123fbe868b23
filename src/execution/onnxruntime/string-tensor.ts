// BYTES tensors at the ORT boundary: the wire layout (each element a 4-byte little-endian length then
// that many bytes) <-> the string[] onnxruntime-node takes and returns for 'string' tensors.
//
// onnxruntime-node carries string tensors as JS strings, converting with UTF-8 both ways, so element
// bytes that are not valid UTF-8 do not survive a round trip through a model (each bad sequence
// becomes U+FFFD). That is a binding limit, documented here because this is where it bites.

import { fail } from '../../errors.js';
import { BYTES_PREFIX, BytesWalker, putBytesLength } from '../../tensor/bytes-layout.js';
import { bytesTensorByteLength } from '../../tensor/bytes-tensor.js';

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Splits length-prefixed BYTES elements; the layout must hold exactly `count` elements. */
export function decodeStringElements(bytes: Uint8Array, count: number, name: string): string[] {
  const out: string[] = new Array<string>(count);
  const w = new BytesWalker(bytes);
  for (let i = 0; i < count; i++) {
    if (!w.next()) {
      throw fail(
        'BAD_TENSOR_DATA',
        w.broken === 'overrun'
          ? `BYTES tensor "${name}": element ${i} claims ${w.detail} bytes, only ` +
              `${w.remaining - BYTES_PREFIX} remain`
          : `BYTES tensor "${name}": expected ${count} elements, got ${i} before the data ended`,
      );
    }
    out[i] = decoder.decode(bytes.subarray(w.start, w.start + w.length));
  }
  if (w.remaining !== 0) {
    throw fail(
      'BAD_TENSOR_DATA',
      `BYTES tensor "${name}": expected ${w.end} bytes for ${count} elements, got ${bytes.byteLength}`,
    );
  }
  return out;
}

/** Bytes the length-prefixed layout of `strings` takes (UTF-8). */
export function encodedStringsByteLength(strings: readonly string[]): number {
  return bytesTensorByteLength(strings);
}

/**
 * Writes `strings` length-prefixed into `target`, which must be exactly
 * `encodedStringsByteLength(strings)` bytes (a shared-memory slot sized by that call).
 */
export function encodeStringElements(strings: readonly string[], target: Uint8Array): void {
  let pos = 0;
  for (const s of strings) {
    if (pos + BYTES_PREFIX > target.byteLength) {
      throw fail('INTERNAL', `string output: target of ${target.byteLength} bytes is too small`);
    }
    const { written, read } = encoder.encodeInto(s, target.subarray(pos + BYTES_PREFIX));
    if (read !== s.length) {
      throw fail('INTERNAL', `string output: target of ${target.byteLength} bytes is too small`);
    }
    putBytesLength(target, pos, written);
    pos += BYTES_PREFIX + written;
  }
  if (pos !== target.byteLength) {
    throw fail(
      'INTERNAL',
      `string output: wrote ${pos} bytes into a ${target.byteLength}-byte slot`,
    );
  }
}
