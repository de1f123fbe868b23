// The BYTES layout: encoding, walking, counting and the exact-count check behind raw BYTES inputs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bytesElements,
  bytesTensorByteLength,
  checkBytesTensor,
  countBytesElements,
  encodeBytesTensor,
} from '../../../src/tensor/bytes-tensor.js';
import { inputLabel } from '../../../src/tensor/tensor-label.js';
import { throwsCode, utf8 } from '../protocol/expect-error.js';

const le32 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];

void describe('encodeBytesTensor', () => {
  void it('writes a 4-byte little-endian length before each element', () => {
    const out = encodeBytesTensor(['ab', new Uint8Array([0, 1, 0]), '']);
    assert.deepEqual(Array.from(out), [...le32(2), 97, 98, ...le32(3), 0, 1, 0, ...le32(0)]);
    assert.equal(bytesTensorByteLength(['ab', new Uint8Array(3), '']), out.length);
  });

  void it('writes strings as UTF-8, keeping NUL and non-ASCII characters', () => {
    const s = 'a\u0000é€😀';
    const out = encodeBytesTensor([s]);
    assert.deepEqual(out.subarray(4), utf8(s));
    assert.deepEqual(Array.from(out.subarray(0, 4)), le32(utf8(s).length));
  });
});

void describe('walking BYTES data', () => {
  void it('returns views of each element, NULs included', () => {
    const data = encodeBytesTensor([new Uint8Array([0, 0]), 'x', '']);
    const parts = bytesElements(data);
    assert.deepEqual(
      parts.map((p) => Array.from(p)),
      [[0, 0], [120], []],
    );
    assert.ok(
      parts.every((p) => p.buffer === data.buffer),
      'views, not copies',
    );
    assert.equal(countBytesElements(data), 3);
    assert.equal(countBytesElements(new Uint8Array(0)), 0);
  });

  void it('refuses a truncated length prefix and an oversized length', () => {
    throwsCode(
      () => countBytesElements(new Uint8Array([...le32(1), 65, 2, 0])),
      'BAD_TENSOR_DATA',
      'BYTES data element 1 at byte 5 has an incomplete length prefix: expected 4 bytes, 2 remain',
    );
    throwsCode(
      () => bytesElements(new Uint8Array([0xff, 0xff, 0xff, 0xff, 1, 2])),
      'BAD_TENSOR_DATA',
      'BYTES data element 0 at byte 0 declares 4294967295 bytes, more than the 2 that remain',
    );
  });
});

void describe('checkBytesTensor', () => {
  const label = inputLabel('INPUT0', [1, 3]);

  void it('accepts exactly the expected number of elements', () => {
    checkBytesTensor(encodeBytesTensor(['a', '\u0000', 'ü']), 3, label);
    checkBytesTensor(new Uint8Array(0), 0, label);
  });

  void it('names both counts when there are too few or too many elements', () => {
    throwsCode(
      () => checkBytesTensor(encodeBytesTensor(['a', 'b']), 3, label),
      'BAD_TENSOR_DATA',
      'input INPUT0: expected 3 BYTES elements for shape [1,3], got 2',
    );
    throwsCode(
      () => checkBytesTensor(encodeBytesTensor(['a', 'b', 'c', 'd']), 3, label),
      'BAD_TENSOR_DATA',
      'input INPUT0: expected 3 BYTES elements for shape [1,3], got 4',
    );
  });

  void it('names the broken element for a truncated prefix or a 0xFFFFFFFF length', () => {
    const two = encodeBytesTensor(['a', 'b']);
    throwsCode(
      () => checkBytesTensor(new Uint8Array([...two, 1, 0]), 3, label),
      'BAD_TENSOR_DATA',
      'input INPUT0: expected 3 BYTES elements for shape [1,3], but element 2 at byte 10 has an ' +
        'incomplete length prefix: expected 4 bytes, 2 remain',
    );
    throwsCode(
      () => checkBytesTensor(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0]), 1, inputLabel('S', [1])),
      'BAD_TENSOR_DATA',
      'input S: expected 1 BYTES elements for shape [1], but element 0 at byte 0 declares ' +
        '4294967295 bytes, more than the 1 that remain',
    );
  });

  void it('reports trailing bytes that are not a whole element', () => {
    throwsCode(
      () => checkBytesTensor(new Uint8Array([...encodeBytesTensor(['a']), 7, 7]), 1),
      'BAD_TENSOR_DATA',
      'expected 1 BYTES elements, but 2 bytes follow the 1 expected elements',
    );
  });
});
