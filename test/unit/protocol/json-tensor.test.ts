// JSON `data` -> raw bytes (jsonTensorByteLength / writeJsonTensor) and the raw-bytes check
// (checkRawTensor): every datatype, nesting, ranges and the exact error messages.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DATATYPES, type Datatype } from '../../../src/tensor/datatypes.js';
import { encodeBytesTensor } from '../../../src/tensor/bytes-tensor.js';
import { jsonTensorByteLength, writeJsonTensor } from '../../../src/protocol/json-tensor.js';
import { checkRawTensor } from '../../../src/tensor/raw-tensor.js';
import { inputLabel } from '../../../src/tensor/tensor-label.js';
import { bytesOf, throwsCode, utf8 } from './expect-error.js';

/** Runs both functions the way validation does and returns the written bytes. */
function write(values: unknown, datatype: Datatype, count: number, offset = 0): Uint8Array {
  const n = jsonTensorByteLength(values, datatype, count);
  const backing = new Uint8Array(new SharedArrayBuffer(n + offset + 8));
  const target = backing.subarray(offset, offset + n);
  assert.equal(writeJsonTensor(values, datatype, count, target), n);
  return target.slice();
}

void describe('writeJsonTensor: every datatype', () => {
  const cases: [Datatype, unknown[], ArrayBufferView][] = [
    ['BOOL', [true, false, true], new Uint8Array([1, 0, 1])],
    ['UINT8', [0, 255, 7], new Uint8Array([0, 255, 7])],
    ['UINT16', [0, 65535], new Uint16Array([0, 65535])],
    ['UINT32', [0, 4294967295], new Uint32Array([0, 4294967295])],
    ['UINT64', [0, 2 ** 53 - 1], new BigUint64Array([0n, 2n ** 53n - 1n])],
    ['INT8', [-128, 127], new Int8Array([-128, 127])],
    ['INT16', [-32768, 32767], new Int16Array([-32768, 32767])],
    ['INT32', [-(2 ** 31), 2 ** 31 - 1], new Int32Array([-(2 ** 31), 2 ** 31 - 1])],
    [
      'INT64',
      [-(2 ** 53 - 1), -1, 0, 2 ** 53 - 1, 2 ** 32, -(2 ** 32) - 1],
      new BigInt64Array([-(2n ** 53n - 1n), -1n, 0n, 2n ** 53n - 1n, 2n ** 32n, -(2n ** 32n) - 1n]),
    ],
    ['FP32', [0.1, -0, NaN, Infinity, 3.5], new Float32Array([0.1, -0, NaN, Infinity, 3.5])],
    ['FP64', [0.1, -1e300, -Infinity], new Float64Array([0.1, -1e300, -Infinity])],
    ['FP16', [1, 65504, 2 ** -24, -0, 1e6], new Uint16Array([0x3c00, 0x7bff, 1, 0x8000, 0x7c00])],
    ['BF16', [1, -2, 1 + 3 * 2 ** -8], new Uint16Array([0x3f80, 0xc000, 0x3f82])],
  ];
  for (const [datatype, values, expected] of cases) {
    void it(`${datatype}: writes little-endian bytes`, () => {
      assert.deepEqual(write(values, datatype, values.length), bytesOf(expected).slice());
    });
  }

  void it('covers every datatype in the table', () => {
    const covered = new Set<string>([...cases.map((c) => c[0]), 'BYTES']);
    assert.deepEqual(
      [...DATATYPES].filter((d) => !covered.has(d)),
      [],
    );
  });

  void it('BYTES: length-prefixed UTF-8, NUL and non-ASCII kept', () => {
    const values = ['a\u0000b', 'héllo', '', '😀'];
    assert.equal(jsonTensorByteLength(values, 'BYTES', 4), 16 + 3 + 6 + 0 + 4);
    assert.deepEqual(write(values, 'BYTES', 4), encodeBytesTensor(values));
  });

  void it('flattens regular nesting row-major, and takes a bare scalar as one element', () => {
    assert.deepEqual(
      write([[[1, 2]], [[3, 4]], [[5, 6]]], 'INT32', 6),
      bytesOf(new Int32Array([1, 2, 3, 4, 5, 6])).slice(),
    );
    assert.deepEqual(write(7, 'UINT8', 1), new Uint8Array([7]));
    assert.deepEqual(
      write(
        [
          ['a', 'b'],
          ['c', 'd'],
        ],
        'BYTES',
        4,
      ),
      encodeBytesTensor(['a', 'b', 'c', 'd']),
    );
    assert.deepEqual(write([[], []], 'FP32', 0), new Uint8Array(0));
  });

  void it('writes correctly into a target that is not aligned to the element size', () => {
    const values = [1.5, -2, 2 ** 40];
    assert.deepEqual(write(values, 'FP64', 3, 3), bytesOf(new Float64Array(values)).slice());
    assert.deepEqual(write([-5, 9], 'INT64', 2, 1), bytesOf(new BigInt64Array([-5n, 9n])).slice());
  });
});

void describe('writeJsonTensor: refusals', () => {
  const label = inputLabel('INPUT0', [1, 16]);
  const target = new Uint8Array(256);

  void it("words a wrong element count as Triton's HTTP front end does", () => {
    const fifteen = Array.from({ length: 15 }, (_, i) => i);
    throwsCode(
      () => jsonTensorByteLength(fifteen, 'FP32', 16, label),
      'BAD_TENSOR_DATA',
      "Failed to parse 'data' field: shape does not match true shape",
    );
    throwsCode(
      () => writeJsonTensor([...fifteen, 1, 2], 'FP32', 16, target, label),
      'BAD_TENSOR_DATA',
      "Unable to parse 'data': Shape does not match true shape of 'data' field",
    );
  });

  void it('refuses ragged nesting', () => {
    throwsCode(
      () => writeJsonTensor([[1, 2], [3]], 'INT32', 3, target),
      'BAD_TENSOR_DATA',
      'data is ragged: at nesting depth 1 expected an array of 2 elements, got an array of 1',
    );
    throwsCode(
      () => writeJsonTensor([[1, 2], 3], 'INT32', 4, target),
      'BAD_TENSOR_DATA',
      'data is ragged: at nesting depth 1 expected an array of 2 elements, got 3, not an array',
    );
    throwsCode(
      () => writeJsonTensor([1, [2, 3]], 'INT32', 2, target),
      'BAD_TENSOR_DATA',
      'element 1 is an array (the data is ragged), expected an integer in [-2147483648, 2147483647] for INT32',
    );
  });

  void it('refuses UINT8 values outside [0, 255] or not integers', () => {
    const l = inputLabel('IN', [3]);
    for (const bad of [256, -1, 1.5, '1', null, true]) {
      throwsCode(
        () => writeJsonTensor([0, 1, bad], 'UINT8', 3, target, l),
        'BAD_TENSOR_DATA',
        `input IN: element 2 is ${bad === '1' ? 'the string "1"' : String(bad)}, expected an integer in [0, 255] for UINT8`,
      );
    }
  });

  void it('refuses 64-bit integers beyond 2^53-1 (JSON has already rounded them)', () => {
    throwsCode(
      () => writeJsonTensor([2 ** 53], 'INT64', 1, target),
      'BAD_TENSOR_DATA',
      'element 0 is 9007199254740992, expected a safe integer in [-9007199254740991, 9007199254740991] for INT64',
    );
    throwsCode(
      () => writeJsonTensor([-1], 'UINT64', 1, target),
      'BAD_TENSOR_DATA',
      /element 0 is -1, expected a safe integer in \[0, 9007199254740991\] for UINT64/,
    );
    throwsCode(() => writeJsonTensor(['5'], 'INT64', 1, target), 'BAD_TENSOR_DATA');
  });

  void it('refuses other element kinds', () => {
    throwsCode(
      () => writeJsonTensor([1], 'BOOL', 1, target),
      'BAD_TENSOR_DATA',
      'element 0 is 1, expected true or false for BOOL',
    );
    throwsCode(
      () => writeJsonTensor(['x'], 'FP16', 1, target),
      'BAD_TENSOR_DATA',
      'element 0 is the string "x", expected a number for FP16',
    );
    throwsCode(
      () => jsonTensorByteLength(['a', 3], 'BYTES', 2),
      'BAD_TENSOR_DATA',
      'element 1 is 3, expected a string for BYTES',
    );
    throwsCode(() => writeJsonTensor([{}], 'FP32', 1, target), 'BAD_TENSOR_DATA', /is an object/);
  });

  void it('refuses nesting deeper than 100 levels from any caller', () => {
    let deep: unknown = [1];
    for (let i = 0; i < 150; i++) deep = [deep];
    throwsCode(() => jsonTensorByteLength(deep, 'FP32', 1), 'BAD_TENSOR_DATA', /deeper than 100/);
  });
});

void describe('checkRawTensor', () => {
  void it('requires count * size bytes for fixed-size types', () => {
    const label = inputLabel('INPUT0', [1, 16]);
    checkRawTensor(new Uint8Array(64), 'FP32', 16, label);
    throwsCode(
      () => checkRawTensor(new Uint8Array(68), 'FP32', 16, label),
      'BYTE_SIZE_MISMATCH',
      'input INPUT0: expected 64 bytes for shape [1,16] FP32, got 68',
    );
    throwsCode(
      () => checkRawTensor(new Uint8Array(60), 'FP32', 16, label),
      'BYTE_SIZE_MISMATCH',
      'input INPUT0: expected 64 bytes for shape [1,16] FP32, got 60',
    );
  });

  void it('walks BYTES data: exact count, NULs allowed', () => {
    const label = inputLabel('S', [1, 3]);
    checkRawTensor(encodeBytesTensor(['\u0000', 'a\u0000', utf8('ß')]), 'BYTES', 3, label);
    throwsCode(
      () => checkRawTensor(encodeBytesTensor(['a', 'b']), 'BYTES', 3, label),
      'BAD_TENSOR_DATA',
      'input S: expected 3 BYTES elements for shape [1,3], got 2',
    );
    throwsCode(
      () => checkRawTensor(encodeBytesTensor(['a', 'b', 'c', 'd']), 'BYTES', 3, label),
      'BAD_TENSOR_DATA',
      'input S: expected 3 BYTES elements for shape [1,3], got 4',
    );
  });
});
