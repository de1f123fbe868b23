// Scalar and enum values of the text format: reads one value's tokens (an optional `-`, then a number,
// identifier or adjacent string literals) and turns them into the field's JS value with the field's
// range rules (schema.ts INT_RANGES: 64-bit integers must fit a JS number exactly).

import { describeToken, syntaxError, type Lexer, type Token } from './lexer.js';
import { INT_RANGES, type CompiledSchema, type FieldSchema, type FieldType } from './schema.js';

export type ScalarValue = string | number | boolean;

const TRUE_WORDS = new Set(['true', 'True', 't']);
const FALSE_WORDS = new Set(['false', 'False', 'f']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `field "dims" (int64)` — how errors name the field being read. */
export function fieldLabel(field: FieldSchema): string {
  return `field "${field.name}" (${field.type.name})`;
}

/** Integer text (decimal, 0x hex, 0 octal) -> exact value. */
function intValue(text: string): bigint {
  if (/^0[xX]/.test(text)) return BigInt(text);
  if (text.length > 1 && text.startsWith('0')) return BigInt(`0o${text.slice(1)}`);
  return BigInt(text);
}

/** Default value of a scalar or enum type, as the parser writes it (map entries without key/value). */
export function defaultScalar(type: FieldType, schema: CompiledSchema): ScalarValue {
  switch (type.kind) {
    case 'enum':
      return schema.enums.get(type.name)?.byNumber.get(0) ?? '';
    case 'message':
      throw new Error('defaultScalar called for a message type');
    case 'scalar':
      if (type.name === 'bool') return false;
      if (type.name === 'string' || type.name === 'bytes') return '';
      return 0;
  }
}

/**
 * Reads one value of `field` (a scalar or enum field) from `lexer`. Errors name the file, the
 * position of the offending token, the field and what arrived.
 */
export function readScalar(
  lexer: Lexer,
  field: FieldSchema,
  schema: CompiledSchema,
  file: string,
): ScalarValue {
  const type = field.type;
  const first = lexer.next();
  const negative = first.kind === 'punct' && first.text === '-';
  const tok: Token = negative ? lexer.next() : first;
  const bad = (what: string): Error =>
    syntaxError(file, tok, `${fieldLabel(field)} expects ${what}, got ${describeToken(tok)}`);

  if (type.kind === 'enum') {
    const en = schema.enums.get(type.name);
    if (en === undefined) throw new Error(`schema has no enum ${type.name}`);
    if (tok.kind === 'ident' && !negative) {
      if (en.byName.has(tok.text)) return tok.text;
      throw syntaxError(
        file,
        tok,
        `unknown value ${tok.text} for ${fieldLabel(field)}; expected one of ${[...en.byName.keys()].join(', ')}`,
      );
    }
    if (tok.kind === 'number' && tok.numberKind === 'int') {
      const n = Number(negative ? -intValue(tok.text) : intValue(tok.text));
      const name = en.byNumber.get(n);
      if (name !== undefined) return name;
      throw syntaxError(file, tok, `${fieldLabel(field)} has no value numbered ${n}`);
    }
    throw bad('an enum value name or number');
  }
  if (type.kind === 'message') throw new Error('readScalar called for a message field');

  switch (type.name) {
    case 'string':
    case 'bytes': {
      if (negative || tok.kind !== 'string') throw bad('a string literal');
      // Adjacent literals concatenate: "ab" 'cd' is "abcd".
      const parts: Uint8Array[] = [tok.bytes];
      for (let t = lexer.peek(); t.kind === 'string'; t = lexer.peek()) {
        lexer.next();
        parts.push(t.bytes);
      }
      const bytes = parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts);
      if (type.name === 'bytes') return Buffer.from(bytes).toString('latin1');
      try {
        return utf8.decode(bytes);
      } catch {
        throw syntaxError(file, tok, `${fieldLabel(field)}: the string is not valid UTF-8`);
      }
    }
    case 'bool': {
      if (!negative && tok.kind === 'ident') {
        if (TRUE_WORDS.has(tok.text)) return true;
        if (FALSE_WORDS.has(tok.text)) return false;
      }
      if (!negative && tok.kind === 'number' && tok.numberKind === 'int') {
        const v = intValue(tok.text);
        if (v === 0n || v === 1n) return v === 1n;
      }
      throw bad('true, false, t, f, True, False, 1 or 0');
    }
    case 'float':
    case 'double': {
      if (tok.kind === 'ident') {
        const word = tok.text.toLowerCase();
        if (word === 'inf' || word === 'infinity') return negative ? -Infinity : Infinity;
        if (word === 'nan') return NaN;
        throw bad('a number, inf or nan');
      }
      if (tok.kind !== 'number') throw bad('a number');
      const v =
        tok.numberKind === 'int'
          ? Number(intValue(tok.text))
          : Number(tok.text.replace(/[fF]$/, ''));
      return negative ? -v : v;
    }
    default: {
      const range = INT_RANGES[type.name];
      if (range === undefined) throw new Error(`no range for ${type.name}`);
      if (tok.kind !== 'number' || tok.numberKind !== 'int') throw bad('an integer');
      const v = negative ? -intValue(tok.text) : intValue(tok.text);
      if (v < range[0] || v > range[1]) {
        throw syntaxError(
          file,
          first,
          `${fieldLabel(field)} value ${v} is out of range [${range[0]}, ${range[1]}]`,
        );
      }
      return Number(v);
    }
  }
}
