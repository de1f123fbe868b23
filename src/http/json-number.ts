// One JSON number token read from bytes, to the same double JSON.parse gives it, plus the
// non-finite tokens (NaN, Infinity, Inf, each optionally signed) that json-text.ts accepts too.
//
// Exactness: a token whose digits form an integer m < 2^53 with a decimal exponent |e| <= 22 is
// m * 10^e or m / 10^-e, one correctly rounded operation on two exact doubles (Clinger's fast
// path), which is what every correctly rounding parser returns. Any other token is handed to
// Number() on its text, the same conversion JSON.parse applies. The grammar is JSON's, strictly:
// a token JSON.parse would refuse ("01", "1.", ".5", "+1", "1e") reads as invalid.

const ZERO = 0x30;
const NINE = 0x39;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const UPPER_E = 0x45;
const LOWER_E = 0x65;

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);
const TWO_POW_53 = 2 ** 53;

/** Where the last token read ended (one past its last byte); -1 after an invalid token. */
export interface NumberCursor {
  end: number;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

/** True for a byte that may follow a NaN/Infinity token (json-text.ts: not [A-Za-z0-9_]). */
function endsWord(c: number | undefined): boolean {
  if (c === undefined) return true;
  return !(
    (c >= ZERO && c <= NINE) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f
  );
}

function word(b: Uint8Array, at: number, text: string): boolean {
  for (let k = 0; k < text.length; k++) if (b[at + k] !== text.charCodeAt(k)) return false;
  return true;
}

/** NaN / Infinity / Inf at `at` (after any sign); sets `cursor.end`, or -1 when none is there. */
function nonFinite(b: Uint8Array, at: number, negative: boolean, cursor: NumberCursor): number {
  for (const [text, value] of [
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['Inf', Infinity],
  ] as const) {
    if (word(b, at, text) && endsWord(b[at + text.length])) {
      cursor.end = at + text.length;
      // -NaN reads as NaN itself, as in json-text.ts: negating would set the sign bit in the tensor.
      return negative && value === Infinity ? -Infinity : value;
    }
  }
  cursor.end = -1;
  return NaN;
}

/**
 * Reads the number token starting at `start`. Returns its value and sets `cursor.end`; an invalid
 * token sets `cursor.end` to -1 (the return value is then meaningless). `text` reads a token's
 * bytes as a string (the caller's Buffer), for the tokens Number() converts.
 */
export function readNumber(
  b: Uint8Array,
  start: number,
  cursor: NumberCursor,
  text: (from: number, to: number) => string,
): number {
  let i = start;
  let c = b[i];
  const negative = c === MINUS;
  if (negative) c = b[++i];
  if (c === 0x4e || c === 0x49) return nonFinite(b, i, negative, cursor); // N, I
  let mantissa = 0;
  let exponent = 0;
  if (c === ZERO) {
    c = b[++i];
  } else if (isDigit(c)) {
    do {
      mantissa = mantissa * 10 + ((c as number) - ZERO);
      c = b[++i];
    } while (isDigit(c));
  } else {
    cursor.end = -1;
    return NaN;
  }
  if (c === DOT) {
    c = b[++i];
    if (!isDigit(c)) {
      cursor.end = -1;
      return NaN;
    }
    do {
      mantissa = mantissa * 10 + ((c as number) - ZERO);
      exponent--;
      c = b[++i];
    } while (isDigit(c));
  }
  let exact = true;
  if (c === UPPER_E || c === LOWER_E) {
    c = b[++i];
    let sign = 1;
    if (c === MINUS || c === PLUS) {
      if (c === MINUS) sign = -1;
      c = b[++i];
    }
    if (!isDigit(c)) {
      cursor.end = -1;
      return NaN;
    }
    let e = 0;
    do {
      if (e < 100000) e = e * 10 + ((c as number) - ZERO);
      else exact = false;
      c = b[++i];
    } while (isDigit(c));
    exponent += sign * e;
  }
  cursor.end = i;
  if (exact && mantissa < TWO_POW_53 && exponent >= -22 && exponent <= 22) {
    const magnitude =
      exponent < 0
        ? mantissa / (POW10[-exponent] as number)
        : mantissa * (POW10[exponent] as number);
    return negative ? -magnitude : magnitude;
  }
  return Number(text(start, i));
}
