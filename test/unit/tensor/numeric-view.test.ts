// The datatype table's TypedArray column and its type-level twin `NumericView`: each datatype gets
// the right constructor, at run time and (checked by the compiler, these tests are type-checked) in
// the types.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DATATYPES,
  datatypeInfo,
  numericArray,
  type NumericDatatype,
  type NumericView,
} from '../../../src/tensor/datatypes.js';
import { numericConstructor } from '../../../src/tensor/typed-view.js';

/** What each fixed-size datatype must be viewed as, written out independently of the table. */
const EXPECTED: { readonly [D in NumericDatatype]: abstract new () => NumericView<D> } = {
  BOOL: Uint8Array,
  UINT8: Uint8Array,
  UINT16: Uint16Array,
  UINT32: Uint32Array,
  UINT64: BigUint64Array,
  INT8: Int8Array,
  INT16: Int16Array,
  INT32: Int32Array,
  INT64: BigInt64Array,
  FP16: Uint16Array,
  FP32: Float32Array,
  FP64: Float64Array,
  BF16: Uint16Array,
};

/** Compiles only when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

void describe('NumericView and the table', () => {
  void it('gives each datatype its constructor, with BYTES_PER_ELEMENT equal to the byte size', () => {
    for (const d of DATATYPES) {
      const info = datatypeInfo(d);
      if (d === 'BYTES') {
        assert.equal(info.array, null);
        assert.equal(info.byteSize, 0);
        assert.throws(() => numericConstructor(info), /BYTES has no fixed-size element view/);
        continue;
      }
      assert.equal(info.array, EXPECTED[d], d);
      assert.equal(numericArray(d), EXPECTED[d], d);
      assert.equal(numericConstructor(info), EXPECTED[d], d);
      assert.equal(numericArray(d).BYTES_PER_ELEMENT, info.byteSize, d);
    }
  });

  void it('types a view by its datatype', () => {
    const buffer = new SharedArrayBuffer(16);
    const fp32: Float32Array = new (numericArray('FP32'))(buffer, 0, 4);
    const int64: BigInt64Array = new (numericArray('INT64'))(buffer, 8, 1);
    const half: Uint16Array = new (numericArray('FP16'))(buffer, 0, 8);
    assert.ok(fp32 instanceof Float32Array && fp32.length === 4);
    assert.ok(int64 instanceof BigInt64Array && int64.byteOffset === 8);
    assert.ok(half instanceof Uint16Array && half.buffer === buffer);
    const exact: [
      Same<NumericView<'BOOL'>, Uint8Array>,
      Same<NumericView<'UINT64'>, BigUint64Array>,
      Same<NumericView<'BF16'>, Uint16Array>,
      Same<NumericView<'FP64'>, Float64Array>,
      Same<
        NumericView,
        | Uint8Array
        | Int8Array
        | Uint16Array
        | Int16Array
        | Uint32Array
        | Int32Array
        | BigUint64Array
        | BigInt64Array
        | Float32Array
        | Float64Array
      >,
    ] = [true, true, true, true, true];
    assert.deepEqual(exact, [true, true, true, true, true]);
  });
});
