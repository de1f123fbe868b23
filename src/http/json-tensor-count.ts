// Counting a JSON request's `inputs` and `outputs` from its bytes, before anything in them is
// parsed: a 54 MB body listing 900,000 inputs was parsed whole (JSON.parse, then the envelope) and
// only then refused, which took seconds and a gigabyte. Counting costs no allocation, and stops at
// the first element past the limit: an oversized list costs time in proportion to the limit, not to
// the body (counting all 900,000 to name the exact number held the main thread for ~0.4 s).

import { fail, type InferenceServerError } from '../errors.js';
import { MAX_TENSORS } from '../protocol/inference-request.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;

export type TensorListKey = 'inputs' | 'outputs';

/**
 * The refusal of an oversized list; the one place its words are written. `count` is null where
 * counting stopped at the first element past the limit ("more than 1024").
 */
export function tooManyTensors(count: number | null, key: TensorListKey): InferenceServerError {
  const listed = count === null ? `more than ${MAX_TENSORS}` : String(count);
  return fail(
    'TOO_MANY_TENSORS',
    `the request lists ${listed} ${key}; at most ${MAX_TENSORS} are accepted`,
  );
}

/** commasToClose's `end` when it stopped at `stopAfter` commas, before the closing bracket. */
export const STOPPED = -2;

/**
 * From `from`, inside an array (or object), to its closing bracket: the commas between its
 * elements and the index after the bracket (-1: the bytes end first; STOPPED: more than
 * `stopAfter` commas came first, and the scan stopped there). Structure only: strings are skipped,
 * nothing is decoded. A plain byte loop: measured on the 2-core machine, 3-5 ns/byte under load,
 * about 5x faster than the regex scan json-text.ts uses (which must also match commas here, and
 * commas are everywhere in a tensor list).
 */
export function commasToClose(
  b: Uint8Array,
  from: number,
  stopAfter = Infinity,
): { commas: number; end: number } {
  let depth = 0;
  let commas = 0;
  const n = b.length;
  for (let i = from; i < n; i++) {
    const c = b[i];
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const s = b[i];
        if (s === QUOTE) break;
        if (s === BACKSLASH) i++;
      }
    } else if (c === OPEN_SQUARE || c === OPEN_CURLY) {
      depth++;
    } else if (c === CLOSE_SQUARE || c === CLOSE_CURLY) {
      if (depth === 0) return { commas, end: i + 1 };
      depth--;
    } else if (c === COMMA && depth === 0) {
      commas++;
      if (commas > stopAfter) return { commas, end: STOPPED };
    }
  }
  return { commas, end: -1 };
}

/** Bytes shorter than this cannot list more than MAX_TENSORS of anything (`[1,1,...]`). */
export const COUNT_FROM_BYTES = 2 * MAX_TENSORS;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The key whose string starts at `open` (a quote), if it is `inputs` or `outputs`. */
function listKey(b: Uint8Array, open: number, close: number): TensorListKey | undefined {
  if (close - open > 64) return undefined;
  let text = '';
  for (let k = open + 1; k < close; k++) text += String.fromCharCode(b[k] ?? 0);
  if (text.includes('\\')) {
    // An escaped key names the same member once JSON.parse has read it.
    try {
      text = JSON.parse(`"${text}"`) as string;
    } catch {
      return undefined;
    }
  }
  return text === 'inputs' || text === 'outputs' ? text : undefined;
}

/**
 * Walks the top-level object of a JSON document and refuses it (TOO_MANY_TENSORS) at the first
 * `inputs` or `outputs` array found with more than MAX_TENSORS elements, without reading the rest
 * of the body: so a repeated key is refused for its first oversized list, although JSON.parse
 * would keep only the last, and an oversized `outputs` written before an oversized `inputs` is the
 * one named. Anything that is not well-formed enough to walk is left to JSON.parse, which reports
 * it.
 */
export function refuseOversizedLists(b: Uint8Array): void {
  if (b.length < COUNT_FROM_BYTES) return;
  let i = skipSpace(b, 0);
  if (b[i] !== OPEN_CURLY) return;
  i = skipSpace(b, i + 1);
  while (b[i] === QUOTE) {
    const close = closingQuote(b, i);
    if (close === -1) break;
    const name = listKey(b, i, close);
    i = skipSpace(b, close + 1);
    if (b[i] !== COLON) break;
    i = skipSpace(b, i + 1);
    const c = b[i];
    if (c === OPEN_SQUARE || c === OPEN_CURLY) {
      const counted = name !== undefined && c === OPEN_SQUARE;
      // MAX_TENSORS commas separate MAX_TENSORS + 1 elements: the first too many.
      const inner = commasToClose(b, i + 1, counted ? MAX_TENSORS - 1 : Infinity);
      if (inner.end === STOPPED && name !== undefined) throw tooManyTensors(null, name);
      i = inner.end;
    } else {
      i = c === QUOTE ? closingQuote(b, i) + 1 : skipToken(b, i);
    }
    if (i <= 0) break;
    i = skipSpace(b, i);
    if (b[i] !== COMMA) break;
    i = skipSpace(b, i + 1);
  }
}

function skipSpace(b: Uint8Array, i: number): number {
  let k = i;
  while (isSpace(b[k])) k++;
  return k;
}

/** The index of the quote that closes the string opened at `open`; -1 when the bytes end first. */
function closingQuote(b: Uint8Array, open: number): number {
  for (let k = open + 1; k < b.length; k++) {
    const s = b[k];
    if (s === QUOTE) return k;
    if (s === BACKSLASH) k++;
  }
  return -1;
}

/** Past a number or literal: up to the comma, brace or space that ends it. */
function skipToken(b: Uint8Array, i: number): number {
  let k = i;
  while (k < b.length && b[k] !== COMMA && b[k] !== CLOSE_CURLY && !isSpace(b[k])) k++;
  return k;
}
