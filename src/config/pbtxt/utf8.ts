// UTF-8 for the text-format parser: where a byte buffer stops being valid UTF-8 (so a bad config file is
// reported at a line and column), and appending a code point's bytes (string literals are byte strings).

/**
 * Byte offset of the first invalid UTF-8 sequence in `bytes`, or -1 when all of it is valid. Rejects
 * what a strict decoder rejects: stray continuation bytes, truncated sequences, overlong forms,
 * surrogates (U+D800..U+DFFF) and code points above U+10FFFF.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number; // bounds of the second byte, which is where overlongs and surrogates show
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = b === 0xe0 ? 0xa0 : 0x80;
      if (b === 0xed) max = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = b === 0xf0 ? 0x90 : 0x80;
      if (b === 0xf4) max = 0x8f;
    } else {
      return i;
    }
    if (i + need >= n) return i; // truncated at the end of the buffer
    const second = bytes[i + 1] as number;
    if (second < min || second > max) return i;
    for (let k = 2; k <= need; k++) {
      const c = bytes[i + k] as number;
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** Appends the UTF-8 encoding of `cp` (a Unicode scalar value) to `out`. */
export function pushUtf8(out: number[], cp: number): void {
  if (cp < 0x80) {
    out.push(cp);
  } else if (cp < 0x800) {
    out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  } else {
    out.push(
      0xf0 | (cp >> 18),
      0x80 | ((cp >> 12) & 0x3f),
      0x80 | ((cp >> 6) & 0x3f),
      0x80 | (cp & 0x3f),
    );
  }
}
