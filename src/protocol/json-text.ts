// Request JSON bytes -> a JS value, under Triton's rules: nesting deeper than 100 is refused by a
// byte scan *before* JSON.parse runs, and the non-standard NaN / Infinity / -Infinity tokens that
// Triton's rapidjson reader accepts (kParseNanAndInfFlag; Python's json.dumps writes them) are read
// as the numbers they name.

import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { fail } from '../errors.js';

/** Triton's HTTP_MAX_JSON_NESTING_DEPTH. */
export const MAX_JSON_DEPTH = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const CAPITAL_N = 0x4e;
const CAPITAL_I = 0x49;

/**
 * One pass over the bytes, outside string literals only. Depth counts open brackets of either kind,
 * so `{"inputs":[{"data":[1]}]}` has depth 4. Throws JSON_TOO_DEEP the moment depth passes 100, so a
 * body of 10,000 `[` costs 101 steps. Returns whether a bare `N` or `I` appeared: valid JSON has no
 * capital letters outside strings, so that is the sign of a NaN/Infinity token. String interiors
 * are skipped with indexOf (native memchr) rather than byte by byte.
 */
function scan(bytes: Uint8Array): boolean {
  let depth = 0;
  let nonFinite = false;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const b = bytes[i] as number;
    if (b === QUOTE) {
      // Find the closing quote: one preceded by an even run of backslashes.
      for (;;) {
        const q = bytes.indexOf(QUOTE, i + 1);
        if (q === -1) return nonFinite; // unterminated: JSON.parse reports it
        let k = q - 1;
        while (bytes[k] === BACKSLASH) k--;
        i = q;
        if ((q - 1 - k) % 2 === 0) break;
      }
    } else if (b === OPEN_SQUARE || b === OPEN_CURLY) {
      if (++depth > MAX_JSON_DEPTH) {
        throw fail(
          'JSON_TOO_DEEP',
          `JSON nesting depth exceeds maximum allowed limit (${MAX_JSON_DEPTH})`,
        );
      }
    } else if (b === CLOSE_SQUARE || b === CLOSE_CURLY) {
      depth--;
    } else if (b === CAPITAL_N || b === CAPITAL_I) {
      nonFinite = true;
    }
  }
  return nonFinite;
}

// A string that stands in for a non-finite token while JSON.parse runs. The random part keeps a
// client from spelling it by accident; a client that learns it can only turn its own strings into
// NaN or Infinity, which it could send directly anyway.
const MARKER = `\u0000nonfinite:${randomUUID()}:`;
const MARKER_JSON = JSON.stringify(MARKER).slice(1, -1);
const NON_FINITE = new Map<string, number>([
  [`${MARKER}NaN`, NaN],
  [`${MARKER}-NaN`, NaN],
  [`${MARKER}Infinity`, Infinity],
  [`${MARKER}-Infinity`, -Infinity],
  [`${MARKER}Inf`, Infinity],
  [`${MARKER}-Inf`, -Infinity],
]);
// String literals are matched (and kept) so tokens inside them are left alone. Linear: the string
// alternative has no nested quantifier that could backtrack.
const TOKENS = /"(?:[^"\\]|\\[\s\S])*"|(-?(?:NaN|Infinity|Inf))(?![A-Za-z0-9_])/g;

function parseWithNonFinite(text: string): unknown {
  const rewritten = text.replace(TOKENS, (m: string, token: string | undefined) =>
    token === undefined ? m : `"${MARKER_JSON}${token}"`,
  );
  // The reviver visits every value, which is slower; only bodies with NaN/Infinity pay for it.
  return JSON.parse(rewritten, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(MARKER)
      ? (NON_FINITE.get(value) ?? value)
      : value,
  );
}

/**
 * Parses a JSON document from bytes (UTF-8; invalid sequences become U+FFFD, as rapidjson does not
 * validate either). JSON_TOO_DEEP past 100 levels, BAD_JSON with the parser's message otherwise.
 * Objects come from JSON.parse, which defines `__proto__` as an ordinary own key (no prototype is
 * set); readers must still use Object.hasOwn rather than trusting inherited properties.
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  const nonFinite = scan(bytes);
  // Buffer#toString rather than TextDecoder: it also accepts views of a SharedArrayBuffer.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return nonFinite ? parseWithNonFinite(text) : JSON.parse(text);
  } catch (e) {
    const why = e instanceof SyntaxError ? e.message : 'the document could not be parsed';
    throw fail('BAD_JSON', `failed to parse the request JSON: ${why.slice(0, 200)}`);
  }
}
