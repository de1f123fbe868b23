// A test-only text-format printer that writes a parsed message back as text in randomly chosen (but
// valid) spellings: colons on or off, { } or < >, lists or repeated fields, every number base, bool
// word and string escape, comments and separators. Parsing its output must give the message back.

import type { PbMessage, PbValue } from '../../../src/config/pbtxt/parser.js';
import type { CompiledSchema, FieldSchema, FieldType } from '../../../src/config/pbtxt/schema.js';

/** mulberry32: a small seeded PRNG, so a failing fast-check seed reproduces the same spelling. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class RandomPrinter {
  constructor(
    private readonly schema: CompiledSchema,
    private readonly rnd: () => number,
  ) {}

  private pick<T>(options: readonly T[]): T {
    return options[Math.floor(this.rnd() * options.length)] as T;
  }

  private chance(p: number): boolean {
    return this.rnd() < p;
  }

  /** Whitespace that always separates tokens: spaces, newlines or a comment. */
  private ws(): string {
    return this.pick([' ', '  ', '\n', '\t', ' # comment ] } "\n', '\r\n']);
  }

  message(msg: PbMessage, type: string): string {
    const fields = [...(this.schema.source.messages[type] ?? [])].filter((f) =>
      Object.prototype.hasOwnProperty.call(msg, f.name),
    );
    // Field order does not matter to the parser; shuffle to show it.
    for (let i = fields.length - 1; i > 0; i--) {
      const j = Math.floor(this.rnd() * (i + 1));
      [fields[i], fields[j]] = [fields[j] as FieldSchema, fields[i] as FieldSchema];
    }
    const parts: string[] = [];
    for (const f of fields) {
      for (const text of this.field(f, msg[f.name] as PbValue)) {
        parts.push(text + this.pick(['', ',', ';']) + this.ws());
      }
    }
    return this.ws() + parts.join('');
  }

  /** The occurrences that spell field `f` with value `v`. */
  private field(f: FieldSchema, v: PbValue): string[] {
    const isMessage = f.type.kind === 'message' || f.label === 'map';
    const colon = isMessage ? this.pick(['', ':', ' : ']) : this.pick([':', ' :', ': ']);
    const one = (x: PbValue): string =>
      f.label === 'map' ? this.entry(f, x as [string, PbValue]) : this.value(f.type, x);
    switch (f.label) {
      case 'optional':
        return [`${f.name}${colon}${this.ws()}${one(v)}`];
      case 'repeated':
      case 'map': {
        const items: PbValue[] =
          f.label === 'map' ? Object.entries(v as PbMessage) : [...(v as PbValue[])];
        if (items.length === 0) return [`${f.name}${colon} [${this.pick(['', ' ', '\n'])}]`];
        const out: string[] = [];
        let i = 0;
        while (i < items.length) {
          const n = 1 + Math.floor(this.rnd() * (items.length - i));
          const chunk = items.slice(i, i + n);
          i += n;
          if (chunk.length === 1 && this.chance(0.5))
            out.push(`${f.name}${colon}${this.ws()}${one(chunk[0] as PbValue)}`);
          else out.push(`${f.name}${colon}[${chunk.map(one).join(`,${this.ws()}`)}]`);
        }
        return out;
      }
    }
  }

  private entry(f: FieldSchema, [key, value]: [string, PbValue]): string {
    const keyType: FieldType = { kind: 'scalar', name: f.key ?? 'string' };
    const keyValue: PbValue =
      keyType.name === 'bool' ? key === 'true' : keyType.name === 'string' ? key : Number(key);
    const valueColon = f.type.kind === 'message' ? this.pick(['', ':']) : ':';
    return this.braces(
      `key: ${this.value(keyType, keyValue)}${this.ws()}value${valueColon} ${this.value(f.type, value)}`,
    );
  }

  private braces(body: string): string {
    return this.chance(0.5) ? `{${body}${this.ws()}}` : `<${body}${this.ws()}>`;
  }

  private value(type: FieldType, v: PbValue): string {
    switch (type.kind) {
      case 'message':
        return this.braces(this.message(v as PbMessage, type.name));
      case 'enum': {
        const number = this.schema.enums.get(type.name)?.byName.get(v as string);
        return number !== undefined && this.chance(0.3) ? String(number) : (v as string);
      }
      case 'scalar':
        switch (type.name) {
          case 'bool':
            return v === true
              ? this.pick(['true', 'True', 't', '1'])
              : this.pick(['false', 'False', 'f', '0']);
          case 'string':
          case 'bytes':
            return this.string(v as string);
          case 'float':
          case 'double':
            return this.float(v as number);
          default:
            return this.integer(v as number);
        }
    }
  }

  private integer(n: number): string {
    const abs = Math.abs(n);
    const digits = this.pick([
      String(abs),
      `0x${abs.toString(16)}`,
      `0X${abs.toString(16).toUpperCase()}`,
      abs === 0 ? '0' : `0${abs.toString(8)}`,
    ]);
    return n < 0 ? `-${this.pick(['', ' '])}${digits}` : digits;
  }

  private float(n: number): string {
    if (Number.isNaN(n)) return this.pick(['nan', 'NaN', '-nan']);
    if (!Number.isFinite(n))
      return `${n < 0 ? '-' : ''}${this.pick(['inf', 'Infinity', 'INF', 'infinity'])}`;
    if (Object.is(n, -0)) return '-0';
    const text = String(n);
    return /[.e]/.test(text) && this.chance(0.3) ? `${text}f` : text;
  }

  /** A string literal, possibly split into adjacent literals, with a random mix of escapes. */
  private string(s: string): string {
    const quote = this.pick(['"', "'"]);
    let out = quote;
    for (const ch of s) {
      const cp = ch.codePointAt(0) as number;
      if (this.chance(0.05)) out += `${quote}${this.pick([' ', '', '\n'])}${quote}`;
      if (ch === quote || ch === '\\') out += `\\${ch}`;
      else if (ch === '\n') out += '\\n';
      else if (cp < 0x20 || cp === 0x7f)
        // Always two hex or three octal digits, so a following digit is never read into the escape.
        out += this.pick([
          `\\x${cp.toString(16).padStart(2, '0')}`,
          `\\${cp.toString(8).padStart(3, '0')}`,
        ]);
      else if (cp > 0xffff && this.chance(0.3)) out += `\\U${cp.toString(16).padStart(8, '0')}`;
      else if (cp > 0x7f && cp <= 0xffff && this.chance(0.3))
        out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else if (cp < 0x80 && this.chance(0.1)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else out += ch;
    }
    return out + quote;
  }
}
