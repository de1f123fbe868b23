// BYTES tensors at the ORT boundary: the wire layout (each element a 4-byte little-endian length then
// that many bytes) <-> the string[] onnxruntime-node takes and returns for 'string' tensors.
//
// onnxruntime-node carries string tensors as JS strings, converting with UTF-8 both ways, so element
// bytes that are not valid UTF-8 do not survive a round trip through a model (each bad sequence
// becomes U+FFFD). That is a binding limit, documented here because this is where it bites.

import { fail } from '../errors.js';

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Splits length-prefixed BYTES elements; the layout must hold exactly `count` elements. */
export function decodeStringElements(bytes: Uint8Array, count: number, name: string): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = new Array<string>(count);
  let pos = 0;
  for (let i = 0; i < count; i++) {
    if (pos + 4 > bytes.byteLength) {
      throw fail(
        'BAD_TENSOR_DATA',
        `BYTES tensor "${name}": expected ${count} elements, got ${i} before the data ended`,
      );
    }
    const len = view.getUint32(pos, true);
    pos += 4;
    if (len > bytes.byteLength - pos) {
      throw fail(
        'BAD_TENSOR_DATA',
        `BYTES tensor "${name}": element ${i} claims ${len} bytes, only ${bytes.byteLength - pos} remain`,
      );
    }
    out[i] = decoder.decode(bytes.subarray(pos, pos + len));
    pos += len;
  }
  if (pos !== bytes.byteLength) {
    throw fail(
      'BAD_TENSOR_DATA',
      `BYTES tensor "${name}": expected ${pos} bytes for ${count} elements, got ${bytes.byteLength}`,
    );
  }
  return out;
}

/** Bytes the length-prefixed layout of `strings` takes (UTF-8). */
export function encodedStringsByteLength(strings: readonly string[]): number {
  let total = 0;
  for (const s of strings) total += 4 + Buffer.byteLength(s, 'utf8');
  return total;
}

/**
 * Writes `strings` length-prefixed into `target`, which must be exactly
 * `encodedStringsByteLength(strings)` bytes (a shared-memory slot sized by that call).
 */
export function encodeStringElements(strings: readonly string[], target: Uint8Array): void {
  const view = new DataView(target.buffer, target.byteOffset, target.byteLength);
  let pos = 0;
  for (const s of strings) {
    if (pos + 4 > target.byteLength) {
      throw fail('INTERNAL', `string output: target of ${target.byteLength} bytes is too small`);
    }
    const { written, read } = encoder.encodeInto(s, target.subarray(pos + 4));
    if (read !== s.length) {
      throw fail('INTERNAL', `string output: target of ${target.byteLength} bytes is too small`);
    }
    view.setUint32(pos, written, true);
    pos += 4 + written;
  }
  if (pos !== target.byteLength) {
    throw fail(
      'INTERNAL',
      `string output: wrote ${pos} bytes into a ${target.byteLength}-byte slot`,
    );
  }
}
