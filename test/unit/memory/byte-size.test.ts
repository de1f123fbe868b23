// Checked byte arithmetic: sizes from shapes, alignment, and the overflow edges.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DATATYPES, datatypeInfo } from '../../../src/tensor/datatypes.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';
import { InferenceServerError } from '../../../src/errors.js';
import {
  alignUp,
  checkedAdd,
  fixedByteLength,
  SLOT_ALIGNMENT,
  slotOffsets,
} from '../../../src/memory/byte-size.js';

const code = (c: string) => (e: unknown) => e instanceof InferenceServerError && e.code === c;
const FIXED = DATATYPES.filter((d) => d !== 'BYTES') as Datatype[];

void describe('fixedByteLength', () => {
  void it('is element count times element size for every fixed-size datatype', () => {
    for (const d of FIXED) {
      assert.equal(fixedByteLength(d, [3, 16]), 48 * datatypeInfo(d).byteSize, d);
    }
  });

  void it('is the element size for a scalar (rank 0)', () => {
    assert.equal(fixedByteLength('FP64', []), 8);
  });

  void it('is 0 when any dim is 0, even if the others multiply past 2^53', () => {
    assert.equal(fixedByteLength('FP32', [2 ** 40, 2 ** 40, 0]), 0);
  });

  void it('rejects a product past Number.MAX_SAFE_INTEGER with BAD_SHAPE', () => {
    assert.throws(() => fixedByteLength('INT64', [2 ** 26, 2 ** 26]), code('BAD_SHAPE'));
    // 2^50 elements of 8 bytes = 2^53, one past the largest safe integer.
    assert.throws(() => fixedByteLength('FP64', [2 ** 50]), code('BAD_SHAPE'));
    assert.equal(fixedByteLength('UINT8', [2 ** 52]), 2 ** 52);
  });

  void it('rejects negative, fractional and unsafe dims with BAD_SHAPE', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) {
      assert.throws(() => fixedByteLength('FP32', [2, bad]), code('BAD_SHAPE'), String(bad));
    }
  });

  void it('refuses BYTES (its size depends on the data)', () => {
    assert.throws(() => fixedByteLength('BYTES', [2]), code('INTERNAL'));
  });
});

void describe('alignUp and checkedAdd', () => {
  void it('rounds up to the slot alignment and keeps multiples', () => {
    assert.equal(SLOT_ALIGNMENT, 64);
    assert.equal(alignUp(0), 0);
    assert.equal(alignUp(1), 64);
    assert.equal(alignUp(64), 64);
    assert.equal(alignUp(65), 128);
  });

  void it('property: result is the smallest multiple of 64 >= n', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 50 }), (n) => {
        const a = alignUp(n);
        return a % 64 === 0 && a >= n && a - n < 64;
      }),
    );
  });

  void it('throws instead of rounding past 2^53', () => {
    assert.throws(() => alignUp(Number.MAX_SAFE_INTEGER - 1), code('BAD_REQUEST'));
    assert.throws(() => checkedAdd(Number.MAX_SAFE_INTEGER, 1), code('BAD_REQUEST'));
    assert.throws(() => checkedAdd(-1, 1), code('INTERNAL'));
  });
});

void describe('slotOffsets', () => {
  void it('places each slot on a 64-byte boundary right after the previous one', () => {
    const { offsets, totalBytes } = slotOffsets([10, 64, 0, 1]);
    assert.deepEqual(offsets, [0, 64, 128, 128]);
    assert.equal(totalBytes, 129);
  });

  void it('property: slots are aligned, ordered and never overlap', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 20 }), (lengths) => {
        const { offsets, totalBytes } = slotOffsets(lengths);
        let end = 0;
        for (const [i, off] of offsets.entries()) {
          if (off % 64 !== 0 || off < end) return false;
          end = off + (lengths[i] ?? 0);
        }
        return totalBytes === end;
      }),
    );
  });
});
