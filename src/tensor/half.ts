// FP16 (IEEE 754 binary16) and BF16 (bfloat16) <-> JS number conversions, one element at a time
// and in bulk. Both 16-bit types travel as raw bit patterns (Uint16Array); nothing here allocates
// per element.

// One 8-byte scratch cell reads a number's bit pattern. DataView calls are inlined by TurboFan and
// name the byte order explicitly, so this code is right on any host.
const scratch = new DataView(new ArrayBuffer(8));

// 2^k for the exponents a half can carry (k = -24 .. 15), looked up instead of Math.pow per element.
const POW2 = new Float64Array(40);
for (let k = -24; k <= 15; k++) POW2[k + 24] = 2 ** k;

const TWO_POW_24 = 16777216;

/** The value of an FP16 bit pattern (exact: every half is a float32 and a double). */
export function halfBitsToNumber(h: number): number {
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * (POW2[0] as number); // subnormal: mant * 2^-24
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1024 + mant) * (POW2[exp - 1] as number); // (1024 + m) * 2^(exp - 15 - 10)
}

/**
 * The FP16 bit pattern nearest to `x`, ties to even, straight from the double (going through
 * float32 first could round twice). Overflow gives ±Infinity, NaN gives the quiet NaN 0x7e00.
 */
export function numberToHalfBits(x: number): number {
  scratch.setFloat64(0, x, true);
  const hi = scratch.getUint32(4, true);
  const sign = (hi >>> 16) & 0x8000;
  const exp = (hi >>> 20) & 0x7ff;
  if (exp === 0x7ff) return x !== x ? 0x7e00 : sign | 0x7c00;
  const e = exp - 1023;
  // 65520 (between 65504, the largest half, and 2^16) already rounds to Infinity; 2^16 and up too.
  if (e >= 16) return sign | 0x7c00;
  if (e >= -14) {
    // Normal half: keep the top 10 of the double's 52 mantissa bits, round on the other 42.
    const lo = scratch.getUint32(0, true);
    const rest = hi & 0x3ff; // the top 10 of the 42 dropped bits
    let bits = ((e + 15) << 10) | ((hi >>> 10) & 0x3ff);
    if (rest > 0x200 || (rest === 0x200 && (lo !== 0 || (bits & 1) === 1))) bits++; // carries into exp
    return sign | bits;
  }
  if (e < -25) return sign; // below half of the smallest subnormal (2^-25): rounds to zero
  // Subnormal half: the value in units of 2^-24, rounded to an integer. Scaling by 2^24 is exact.
  const scaled = Math.abs(x) * TWO_POW_24;
  const whole = Math.floor(scaled);
  const frac = scaled - whole;
  return sign | (frac > 0.5 || (frac === 0.5 && (whole & 1) === 1) ? whole + 1 : whole);
}

/** The value of a BF16 bit pattern: it is the high half of a float32. */
export function bf16BitsToNumber(h: number): number {
  scratch.setUint32(0, (h & 0xffff) << 16, true);
  return scratch.getFloat32(0, true);
}

/**
 * The BF16 bit pattern nearest to `x`, ties to even: the high 16 bits of the float32, rounded on the
 * low 16. The double is first narrowed to float32 with round-to-odd (truncate, then set the last bit
 * if anything was dropped), which makes the second rounding exact: the result is what rounding the
 * double directly would give. NaN gives the quiet NaN 0x7fc0.
 */
export function numberToBf16Bits(x: number): number {
  if (x !== x) return 0x7fc0;
  const f = Math.fround(x);
  scratch.setFloat32(0, f, true);
  let bits = scratch.getUint32(0, true);
  if (f !== x) {
    // Inexact: step the magnitude back toward zero if fround rounded away from it, then mark odd.
    if (Math.abs(f) > Math.abs(x)) bits -= 1;
    bits = (bits | 1) >>> 0;
  }
  const low = bits & 0xffff;
  let high = bits >>> 16;
  if (low > 0x8000 || (low === 0x8000 && (high & 1) === 1)) high++;
  return high;
}

/** Widens FP16 patterns to float32 values (exact), e.g. for JSON output. */
export function halfArrayToFloat32(src: Uint16Array): Float32Array {
  const out = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = halfBitsToNumber(src[i] as number);
  return out;
}

/** Widens BF16 patterns to float32 values: a 16-bit shift per element into a float32 bit view. */
export function bf16ArrayToFloat32(src: Uint16Array): Float32Array {
  const out = new Float32Array(src.length);
  const outBits = new Uint32Array(out.buffer);
  // Float32Array and Uint32Array share the host's byte order, so the shift is endian-neutral.
  for (let i = 0; i < src.length; i++) outBits[i] = (src[i] as number) << 16;
  return out;
}
