// BYTES <-> string[] at the ORT boundary: round trips, exact sizes, and malformed layouts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { InferenceServerError } from '../../../src/errors.js';
import {
  decodeStringElements,
  encodedStringsByteLength,
  encodeStringElements,
} from '../../../src/execution/onnxruntime/string-tensor.js';

const badData = (e: unknown) => e instanceof InferenceServerError && e.code === 'BAD_TENSOR_DATA';

function encode(strings: readonly string[]): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(encodedStringsByteLength(strings)));
  encodeStringElements(strings, out);
  return out;
}

void describe('string tensors', () => {
  void it('writes the 4-byte little-endian length-prefixed layout', () => {
    assert.deepEqual(
      [...encode(['ab', '', 'é'])],
      [2, 0, 0, 0, 97, 98, 0, 0, 0, 0, 2, 0, 0, 0, 0xc3, 0xa9],
    );
  });

  void it('property: decode(encode(s)) === s for any well-formed strings', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 20 }), (strings) => {
        const bytes = encode(strings);
        assert.equal(bytes.byteLength, encodedStringsByteLength(strings));
        assert.deepEqual(decodeStringElements(bytes, strings.length, 't'), strings);
      }),
    );
  });

  void it('decodes from a view at an offset inside a larger buffer', () => {
    const inner = encode(['xyz', 'w']);
    const big = new Uint8Array(inner.byteLength + 8);
    big.set(inner, 5);
    assert.deepEqual(decodeStringElements(big.subarray(5, 5 + inner.byteLength), 2, 't'), [
      'xyz',
      'w',
    ]);
  });

  void it('rejects too few elements, an overlong length, and trailing bytes', () => {
    const two = encode(['a', 'b']);
    assert.throws(() => decodeStringElements(two, 3, 't'), badData);
    assert.throws(() => decodeStringElements(Uint8Array.from([9, 0, 0, 0, 1]), 1, 't'), badData);
    assert.throws(() => decodeStringElements(two, 1, 't'), badData);
    assert.throws(() => decodeStringElements(Uint8Array.from([1, 0]), 1, 't'), badData);
  });

  void it('refuses to encode into a slot of the wrong size', () => {
    assert.throws(() => encodeStringElements(['abc'], new Uint8Array(6)));
    assert.throws(() => encodeStringElements(['abc'], new Uint8Array(8)));
  });
});
