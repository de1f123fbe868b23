// Tokens of the protobuf text format (protobuf.dev "Text Format Language Specification"): identifiers,
// numbers, string literals with C escapes, punctuation; `#` comments and whitespace skipped. Every
// token carries its 1-based line and column (UTF-16 code units, as editors count them).

import { fail, type InferenceServerError } from '../../errors.js';
import { pushUtf8 } from './utf8.js';

export type Punct = '{' | '}' | '<' | '>' | '[' | ']' | ':' | ',' | ';' | '-';

export type Token =
  | { readonly kind: 'ident'; readonly text: string; readonly line: number; readonly col: number }
  | {
      readonly kind: 'number';
      readonly text: string;
      /** `int` = decimal, hex or octal integer; `float` has a point, an exponent or an f suffix. */
      readonly numberKind: 'int' | 'float';
      readonly line: number;
      readonly col: number;
    }
  | {
      readonly kind: 'string';
      readonly text: string;
      /** The literal's bytes after escapes; the parser decides whether they must be UTF-8. */
      readonly bytes: Uint8Array;
      readonly line: number;
      readonly col: number;
    }
  | { readonly kind: 'punct'; readonly text: Punct; readonly line: number; readonly col: number }
  | { readonly kind: 'eof'; readonly text: ''; readonly line: number; readonly col: number };

/** `file:line:col: message` as a CONFIG_SYNTAX error. */
export function syntaxError(
  file: string,
  at: { readonly line: number; readonly col: number },
  message: string,
): InferenceServerError {
  return fail('CONFIG_SYNTAX', `${file}:${at.line}:${at.col}: ${message}`);
}

/** How a token reads in an error message: `"}"`, `identifier foo`, `string "x"`, `end of input`. */
export function describeToken(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'end of input';
    case 'punct':
      return `"${t.text}"`;
    case 'ident':
      return `identifier ${clip(t.text)}`;
    case 'number':
      return `number ${clip(t.text)}`;
    case 'string':
      return `string ${clip(t.text)}`;
  }
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

const PUNCT = new Set<string>(['{', '}', '<', '>', '[', ']', ':', ',', ';', '-']);
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
  '?': 63,
};

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isIdentStart = (c: string): boolean =>
  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentPart = (c: string): boolean => isIdentStart(c) || isDigit(c);
const isHex = (c: string): boolean => /^[0-9a-fA-F]$/.test(c);

const INT_RE = /^(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
const FLOAT_RE = /^(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)[fF]?$/;
const INT_WITH_SUFFIX_RE = /^(?:0|[1-9][0-9]*)[fF]$/;

export class Lexer {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private peeked: Token | undefined;

  constructor(
    private readonly src: string,
    private readonly file: string,
  ) {
    // A UTF-8 byte-order mark is not part of the text; skip it rather than call it a syntax error.
    if (src.charCodeAt(0) === 0xfeff) this.pos = this.lineStart = 1;
  }

  peek(): Token {
    this.peeked ??= this.scan();
    return this.peeked;
  }

  next(): Token {
    const t = this.peek();
    this.peeked = undefined;
    return t;
  }

  private error(at: { line: number; col: number }, message: string): InferenceServerError {
    return syntaxError(this.file, at, message);
  }

  private here(): { line: number; col: number } {
    return { line: this.line, col: this.pos - this.lineStart + 1 };
  }

  private skipBlanks(): void {
    const s = this.src;
    while (this.pos < s.length) {
      const c = s[this.pos] as string;
      if (c === '\n') {
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else if (c === ' ' || c === '\t' || c === '\r' || c === '\v' || c === '\f') {
        this.pos++;
      } else if (c === '#') {
        while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else {
        return;
      }
    }
  }

  private scan(): Token {
    this.skipBlanks();
    const at = this.here();
    const s = this.src;
    if (this.pos >= s.length) return { kind: 'eof', text: '', ...at };
    const c = s[this.pos] as string;
    if (isIdentStart(c)) {
      const start = this.pos;
      while (this.pos < s.length && isIdentPart(s[this.pos] as string)) this.pos++;
      return { kind: 'ident', text: s.slice(start, this.pos), ...at };
    }
    if (isDigit(c) || (c === '.' && isDigit(s[this.pos + 1] ?? ''))) return this.scanNumber(at);
    if (c === '"' || c === "'") return this.scanString(at, c);
    if (PUNCT.has(c)) {
      this.pos++;
      return { kind: 'punct', text: c as Punct, ...at };
    }
    const cp = s.codePointAt(this.pos) as number;
    throw this.error(at, `unexpected character ${JSON.stringify(String.fromCodePoint(cp))}`);
  }

  /**
   * Takes the longest run of number-ish characters (so `1abc` is one bad token, not `1` then `abc`),
   * then classifies it. A sign is a separate `-` token, as in protobuf's own tokenizer.
   */
  private scanNumber(at: { line: number; col: number }): Token {
    const s = this.src;
    const start = this.pos;
    const hex = s[start] === '0' && (s[start + 1] === 'x' || s[start + 1] === 'X');
    while (this.pos < s.length) {
      const c = s[this.pos] as string;
      const prev = s[this.pos - 1];
      if (isIdentPart(c) || c === '.') this.pos++;
      else if ((c === '+' || c === '-') && !hex && (prev === 'e' || prev === 'E')) this.pos++;
      else break;
    }
    const text = s.slice(start, this.pos);
    if (INT_RE.test(text)) return { kind: 'number', text, numberKind: 'int', ...at };
    if (FLOAT_RE.test(text) || INT_WITH_SUFFIX_RE.test(text)) {
      return { kind: 'number', text, numberKind: 'float', ...at };
    }
    throw this.error(at, `invalid number "${clip(text)}"`);
  }

  private scanString(at: { line: number; col: number }, quote: string): Token {
    const s = this.src;
    const start = this.pos;
    const bytes: number[] = [];
    this.pos++;
    for (;;) {
      if (this.pos >= s.length) throw this.error(at, 'unterminated string literal');
      const cp = s.codePointAt(this.pos) as number;
      const c = s[this.pos] as string;
      if (c === quote) {
        this.pos++;
        break;
      }
      if (c === '\n')
        throw this.error(at, 'string literal is not closed before the end of the line');
      if (c === '\\') {
        this.scanEscape(bytes);
        continue;
      }
      pushUtf8(bytes, cp);
      this.pos += cp > 0xffff ? 2 : 1;
    }
    return { kind: 'string', text: s.slice(start, this.pos), bytes: Uint8Array.from(bytes), ...at };
  }

  /** One escape sequence starting at the backslash; appends its bytes. */
  private scanEscape(out: number[]): void {
    const s = this.src;
    const at = this.here();
    const c = s[this.pos + 1] ?? '';
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      out.push(simple);
      this.pos += 2;
      return;
    }
    if (c >= '0' && c <= '7') {
      let end = this.pos + 1;
      while (end < this.pos + 4 && (s[end] ?? '') >= '0' && (s[end] ?? '') <= '7') end++;
      const value = parseInt(s.slice(this.pos + 1, end), 8);
      if (value > 0xff)
        throw this.error(at, `octal escape \\${s.slice(this.pos + 1, end)} is above \\377`);
      out.push(value);
      this.pos = end;
      return;
    }
    if (c === 'x' || c === 'X') {
      let end = this.pos + 2;
      while (end < this.pos + 4 && isHex(s[end] ?? '')) end++;
      if (end === this.pos + 2)
        throw this.error(at, '\\x must be followed by one or two hex digits');
      out.push(parseInt(s.slice(this.pos + 2, end), 16));
      this.pos = end;
      return;
    }
    if (c === 'u' || c === 'U') {
      const digits = c === 'u' ? 4 : 8;
      let cp = this.hexDigits(this.pos + 2, digits, at);
      this.pos += 2 + digits;
      if (cp >= 0xd800 && cp <= 0xdbff && s[this.pos] === '\\' && s[this.pos + 1] === 'u') {
        // A \uD83D\uDE00 surrogate pair spells one code point.
        const low = this.hexDigits(this.pos + 2, 4, this.here());
        if (low >= 0xdc00 && low <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          this.pos += 6;
        }
      }
      if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
        throw this.error(
          at,
          `\\${c} escape U+${cp.toString(16).toUpperCase()} is not a Unicode scalar value`,
        );
      }
      pushUtf8(out, cp);
      return;
    }
    if (c === '' || c === '\n')
      throw this.error(at, 'string literal ends inside an escape sequence');
    throw this.error(
      at,
      `invalid escape sequence "\\${String.fromCodePoint(s.codePointAt(this.pos + 1) ?? 0)}"`,
    );
  }

  private hexDigits(from: number, count: number, at: { line: number; col: number }): number {
    const text = this.src.slice(from, from + count);
    if (text.length !== count || ![...text].every(isHex)) {
      throw this.error(at, `expected ${count} hex digits in a Unicode escape`);
    }
    return parseInt(text, 16);
  }
}
