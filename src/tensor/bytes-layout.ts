// The BYTES element layout (binary tensor extension, shared-memory BYTES tensors, ORT string tensors
// once split): a 4-byte little-endian unsigned length, then that many bytes, no padding. The only
// code that reads or writes a length prefix, and the one walker over elements.

/** Bytes of one length prefix. */
export const BYTES_PREFIX = 4;

/** The little-endian u32 at `at`; the caller has checked 4 bytes are there. */
function lengthAt(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at] as number) |
      ((bytes[at + 1] as number) << 8) |
      ((bytes[at + 2] as number) << 16) |
      ((bytes[at + 3] as number) << 24)) >>>
    0
  );
}

/** Writes `n` as the length prefix at `at`; the caller has checked 4 bytes are there. */
export function putBytesLength(bytes: Uint8Array, at: number, n: number): void {
  bytes[at] = n & 0xff;
  bytes[at + 1] = (n >>> 8) & 0xff;
  bytes[at + 2] = (n >>> 16) & 0xff;
  bytes[at + 3] = (n >>> 24) & 0xff;
}

/**
 * Why a walk stopped short of the data's end: `prefix`, fewer than 4 bytes left for a length
 * prefix; `overrun`, an element declaring more bytes than remain. `none` while it has not.
 */
export type BytesBreak = 'none' | 'prefix' | 'overrun';

/**
 * A cursor over the elements of BYTES data. It never reads past the end: it stops, without
 * throwing, at the end of the data or at a broken element, and says which in `broken`, so each
 * caller words its own error. The walk runs once per element of every BYTES input, output and batch
 * split, so the cursor keeps its position in mutable fields and allocates nothing per element (an
 * iterator of `{offset, length}` pairs would allocate one object per element, two with a generator).
 */
export class BytesWalker {
  /** Elements stepped over so far. */
  count = 0;
  /** Where the next length prefix starts: after the last element, or at the broken one. */
  end: number;
  /** Where the last element's bytes start (after its prefix). */
  start = 0;
  /** Bytes of the last element. */
  length = 0;
  broken: BytesBreak = 'none';
  /** For `prefix`, the bytes left; for `overrun`, the length the element declares. */
  detail = 0;

  constructor(
    readonly bytes: Uint8Array,
    at = 0,
  ) {
    this.end = at;
  }

  /**
   * Steps over one element; false at the end of the data or at a broken element (`broken`), and
   * again on every later call, since a stop does not move `end`.
   */
  next(): boolean {
    return this.skip(1) === 1;
  }

  /** Steps over up to `n` elements; returns how many, fewer at the end or a broken element. */
  skip(n: number): number {
    // The loop keeps its state in locals and writes the fields once: field stores on every element
    // measured ~30% slower than the plain loop this replaced, counting 200k short elements.
    const bytes = this.bytes;
    let at = this.end;
    let k = 0;
    let len = 0;
    while (k < n) {
      const left = bytes.length - at;
      if (left < BYTES_PREFIX) {
        if (left > 0) this.stop('prefix', left);
        break;
      }
      len = lengthAt(bytes, at);
      // Compare against what is left rather than computing at + len: len may be 0xFFFFFFFF.
      if (len > left - BYTES_PREFIX) {
        this.stop('overrun', len);
        break;
      }
      at += BYTES_PREFIX + len;
      k++;
    }
    if (k > 0) {
      this.start = at - len;
      this.length = len;
      this.end = at;
      this.count += k;
    }
    return k;
  }

  private stop(broken: BytesBreak, detail: number): void {
    this.broken = broken;
    this.detail = detail;
  }

  /** The bytes that remain after `end` (all of a broken element, prefix included). */
  get remaining(): number {
    return this.bytes.length - this.end;
  }
}
