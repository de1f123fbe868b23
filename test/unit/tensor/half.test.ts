// FP16 / BF16 conversions: every bit pattern round-trips, edge values land on the right patterns,
// and rounding is to the nearest value with ties to even (checked against the neighbours).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  bf16ArrayToFloat32,
  bf16BitsToNumber,
  halfArrayToFloat32,
  halfBitsToNumber,
  numberToBf16Bits,
  numberToHalfBits,
} from '../../../src/tensor/half.js';

const isHalfNaN = (h: number): boolean => (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
const isBf16NaN = (h: number): boolean => (h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0;

/**
 * Oracle for round-to-nearest-even: `bits` must be at least as close to `x` as its neighbours one
 * pattern up and down (same sign), and on a tie it must be the even one.
 */
function assertNearestEven(
  x: number,
  bits: number,
  toNumber: (h: number) => number,
  maxFinite: number,
): void {
  const v = toNumber(bits);
  const err = Math.abs(v - x);
  for (const n of [bits - 1, bits + 1]) {
    if ((n & 0x7fff) > maxFinite || n < 0 || (n & 0x8000) !== (bits & 0x8000)) continue;
    const nErr = Math.abs(toNumber(n) - x);
    assert.ok(err <= nErr, `${x}: ${bits.toString(16)} is farther than ${n.toString(16)}`);
    if (err === nErr) assert.equal(bits & 1, 0, `${x}: tie must go to the even pattern`);
  }
}

void describe('FP16', () => {
  void it('every non-NaN pattern round-trips through a number; NaNs become 0x7e00', () => {
    for (let h = 0; h < 0x10000; h++) {
      const back = numberToHalfBits(halfBitsToNumber(h));
      assert.equal(back, isHalfNaN(h) ? 0x7e00 : h, `pattern ${h.toString(16)}`);
    }
  });

  void it('maps edge values to their patterns', () => {
    const cases: [number, number][] = [
      [0, 0x0000],
      [-0, 0x8000],
      [1, 0x3c00],
      [-2, 0xc000],
      [65504, 0x7bff], // largest finite
      [65519.99, 0x7bff], // just under the midpoint to 2^16
      [65520, 0x7c00], // the midpoint rounds to even: Infinity
      [1e10, 0x7c00],
      [-1e10, 0xfc00],
      [Infinity, 0x7c00],
      [-Infinity, 0xfc00],
      [NaN, 0x7e00],
      [2 ** -14, 0x0400], // smallest normal
      [2 ** -24, 0x0001], // smallest subnormal
      [2 ** -25, 0x0000], // half of it: tie, to even (zero)
      [2 ** -25 * 1.000001, 0x0001],
      [3 * 2 ** -25, 0x0002], // tie between 1 and 2 ulps: even
      [1023 * 2 ** -24, 0x03ff], // largest subnormal
      [2 ** -14 - 2 ** -26, 0x0400], // rounds up out of the subnormals
      [1 + 2 ** -11, 0x3c00], // tie between 1 and 1+2^-10: even
      [1 + 3 * 2 ** -11, 0x3c02], // tie between odd and even: up to even
      [1 + 2 ** -11 + 2 ** -40, 0x3c01], // just past the tie
      [1e-10, 0x0000],
      [-1e-10, 0x8000],
    ];
    for (const [x, bits] of cases) assert.equal(numberToHalfBits(x), bits, `${x}`);
    assert.equal(halfBitsToNumber(0x0001), 2 ** -24);
    assert.equal(halfBitsToNumber(0x7bff), 65504);
    assert.ok(Object.is(halfBitsToNumber(0x8000), -0));
    assert.ok(Number.isNaN(halfBitsToNumber(0x7e01)));
  });

  void it('rounds any finite number to the nearest half, ties to even', () => {
    fc.assert(
      fc.property(fc.double({ min: -65519, max: 65519, noNaN: true }), (x) => {
        assertNearestEven(x, numberToHalfBits(x), halfBitsToNumber, 0x7bff);
      }),
      { numRuns: 5000 },
    );
  });

  void it('widens arrays exactly', () => {
    const src = new Uint16Array([0x3c00, 0x0001, 0xfc00, 0x7bff]);
    assert.deepEqual(Array.from(halfArrayToFloat32(src)), [1, 2 ** -24, -Infinity, 65504]);
  });
});

void describe('BF16', () => {
  void it('every non-NaN pattern round-trips through a number; NaNs become 0x7fc0', () => {
    for (let h = 0; h < 0x10000; h++) {
      const back = numberToBf16Bits(bf16BitsToNumber(h));
      assert.equal(back, isBf16NaN(h) ? 0x7fc0 : h, `pattern ${h.toString(16)}`);
    }
  });

  void it('is the high half of the float32, rounded to nearest even', () => {
    const cases: [number, number][] = [
      [0, 0x0000],
      [-0, 0x8000],
      [1, 0x3f80],
      [1 + 2 ** -8, 0x3f80], // tie: 0x3f80 is even
      [1 + 3 * 2 ** -8, 0x3f82], // tie: up to even
      [1 + 2 ** -8 + 2 ** -30, 0x3f81], // past the tie, below float32 precision of the tie
      [1 + 2 ** -8 + 2 ** -40, 0x3f81], // past the tie by less than a float32 ulp: no double rounding
      [3.4028234663852886e38, 0x7f80], // float32 max rounds up to Infinity
      [Infinity, 0x7f80],
      [-Infinity, 0xff80],
      [NaN, 0x7fc0],
      [2 ** -133, 0x0001], // smallest subnormal
      [2 ** -134, 0x0000], // half of it: tie to even
    ];
    for (const [x, bits] of cases) assert.equal(numberToBf16Bits(x), bits, `${x}`);
  });

  void it('rounds any finite number to the nearest bf16, ties to even', () => {
    fc.assert(
      fc.property(fc.double({ min: -3.38e38, max: 3.38e38, noNaN: true }), (x) => {
        assertNearestEven(x, numberToBf16Bits(x), bf16BitsToNumber, 0x7f7f);
      }),
      { numRuns: 5000 },
    );
  });

  void it('widens arrays exactly', () => {
    const src = new Uint16Array([0x3f80, 0xc000, 0x7f80, 0x0001]);
    assert.deepEqual(Array.from(bf16ArrayToFloat32(src)), [1, -2, Infinity, 2 ** -133]);
  });
});
