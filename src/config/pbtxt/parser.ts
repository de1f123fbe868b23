// The schema-driven protobuf text-format parser: text -> a plain object with snake_case field names,
// enums as names, repeated fields as arrays and maps as records. Every field name and value is checked
// against the schema as it is read, so each error points at the offending token (file:line:col).
// Recursion is bounded by `maxDepth` (message nesting), so hostile input cannot overflow the stack.

import { fail } from '../../errors.js';
import { describeToken, Lexer, syntaxError, type Token } from './lexer.js';
import { defaultScalar, readScalar, type ScalarValue } from './scalars.js';
import {
  compileSchema,
  type CompiledSchema,
  type FieldSchema,
  type ProtoSchema,
} from './schema.js';
import { suggestField } from './suggest.js';
import { firstInvalidUtf8 } from './utf8.js';

export type PbValue = ScalarValue | PbMessage | PbValue[];
export interface PbMessage {
  [field: string]: PbValue;
}

export interface ParseOptions {
  /** The path errors name, e.g. `model_repository/simple/config.pbtxt`. */
  readonly file: string;
  /** Deepest allowed message nesting (the root message is depth 0). Default 64. */
  readonly maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 64;

/** Parses `text` as a message of type `root` in `schema`. Throws CONFIG_SYNTAX on any error. */
export function parseTextProto(
  text: string,
  schema: ProtoSchema,
  root: string,
  options: ParseOptions,
): PbMessage {
  const parser = new Parser(new Lexer(text, options.file), compileSchema(schema), options);
  return parser.parseRoot(root);
}

/** As `parseTextProto`, for file bytes: invalid UTF-8 is reported at its line and column. */
export function parseTextProtoBytes(
  bytes: Uint8Array,
  schema: ProtoSchema,
  root: string,
  options: ParseOptions,
): PbMessage {
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    const before = Buffer.from(bytes.subarray(0, bad)).toString('utf8');
    const lineStart = before.lastIndexOf('\n') + 1;
    const at = { line: before.split('\n').length, col: before.length - lineStart + 1 };
    throw syntaxError(options.file, at, 'the file is not valid UTF-8');
  }
  return parseTextProto(Buffer.from(bytes).toString('utf8'), schema, root, options);
}

/** Where a field was first set, for "set twice" and oneof errors. */
interface Seen {
  readonly field: string;
  readonly line: number;
  readonly col: number;
}

class Parser {
  private readonly maxDepth: number;
  private readonly entrySchemas = new Map<FieldSchema, ReadonlyMap<string, FieldSchema>>();

  constructor(
    private readonly lexer: Lexer,
    private readonly schema: CompiledSchema,
    private readonly options: ParseOptions,
  ) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  private error(at: Token, message: string): Error {
    return syntaxError(this.options.file, at, message);
  }

  parseRoot(root: string): PbMessage {
    return this.parseFields(this.fieldsOf(root), root, null, 0);
  }

  private fieldsOf(message: string): ReadonlyMap<string, FieldSchema> {
    const fields = this.schema.fields.get(message);
    if (fields === undefined) throw fail('INTERNAL', `schema has no message ${message}`);
    return fields;
  }

  /**
   * Fields up to `close` (or the end of input for the root message). `open` is the token that
   * opened this message, named when the closing delimiter is missing.
   */
  private parseFields(
    fields: ReadonlyMap<string, FieldSchema>,
    typeName: string,
    open: Token | null,
    depth: number,
  ): PbMessage {
    const out: PbMessage = {};
    const seen = new Map<string, Seen>();
    const oneofs = new Map<string, Seen>();
    const close = open === null ? null : open.text === '{' ? '}' : '>';
    for (;;) {
      const t = this.lexer.next();
      if (t.kind === 'eof') {
        if (open === null) return out;
        throw this.error(
          t,
          `unexpected end of input: "${open.text}" at ${open.line}:${open.col} is not closed`,
        );
      }
      if (t.kind === 'punct' && t.text === close) return out;
      if (t.kind !== 'ident') {
        const want = close === null ? 'a field name' : `a field name or "${close}"`;
        throw this.error(t, `expected ${want}, got ${describeToken(t)}`);
      }
      const field = fields.get(t.text);
      if (field === undefined) {
        throw this.error(
          t,
          `unknown field "${t.text}" in ${typeName}${suggestField(t.text, fields.keys())}`,
        );
      }
      if (field.label === 'optional') {
        const prev = seen.get(field.name);
        if (prev !== undefined) {
          throw this.error(
            t,
            `field "${field.name}" is set twice (first at ${prev.line}:${prev.col}); it is not repeated`,
          );
        }
        seen.set(field.name, { field: field.name, line: t.line, col: t.col });
      }
      if (field.oneof !== undefined) {
        const other = oneofs.get(field.oneof);
        if (other !== undefined && other.field !== field.name) {
          throw this.error(
            t,
            `field "${field.name}" and field "${other.field}" (at ${other.line}:${other.col}) are both set, but only one member of oneof "${field.oneof}" may be`,
          );
        }
        oneofs.set(field.oneof, { field: field.name, line: t.line, col: t.col });
      }
      this.parseFieldValue(field, out, depth);
      const sep = this.lexer.peek();
      if (sep.kind === 'punct' && (sep.text === ',' || sep.text === ';')) this.lexer.next();
    }
  }

  /** The value(s) after a field name, stored into `out`. */
  private parseFieldValue(field: FieldSchema, out: PbMessage, depth: number): void {
    const isMessage = field.type.kind === 'message' || field.label === 'map';
    let t = this.lexer.peek();
    if (t.kind === 'punct' && t.text === ':') {
      this.lexer.next();
      t = this.lexer.peek();
    } else if (!isMessage) {
      throw this.error(t, `expected ":" after ${fieldName(field)}, got ${describeToken(t)}`);
    }
    const isList = t.kind === 'punct' && t.text === '[';
    if (isList && field.label === 'optional') {
      throw this.error(t, `${fieldName(field)} is not repeated, so it cannot take a [ ... ] list`);
    }
    const readOne = (): PbValue =>
      isMessage
        ? this.parseMessageValue(field, depth)
        : readScalar(this.lexer, field, this.schema, this.options.file);

    const values: PbValue[] = [];
    if (isList) {
      this.lexer.next();
      const first = this.lexer.peek();
      if (first.kind === 'punct' && first.text === ']') {
        this.lexer.next();
      } else {
        for (;;) {
          values.push(readOne());
          const after = this.lexer.next();
          if (after.kind === 'punct' && after.text === ']') break;
          if (after.kind !== 'punct' || after.text !== ',') {
            throw this.error(
              after,
              `expected "," or "]" in the list of ${fieldName(field)}, got ${describeToken(after)}`,
            );
          }
        }
      }
    } else {
      values.push(readOne());
    }
    this.store(field, out, values);
  }

  private store(field: FieldSchema, out: PbMessage, values: PbValue[]): void {
    switch (field.label) {
      case 'optional':
        out[field.name] = values[0] as PbValue;
        return;
      case 'repeated': {
        const prev = out[field.name];
        if (Array.isArray(prev)) prev.push(...values);
        else out[field.name] = values;
        return;
      }
      case 'map': {
        const prev = out[field.name];
        const map: PbMessage =
          prev !== undefined && typeof prev === 'object' && !Array.isArray(prev) ? prev : {};
        for (const entry of values) {
          const e = entry as PbMessage;
          const key =
            e.key ?? defaultScalar({ kind: 'scalar', name: field.key ?? 'string' }, this.schema);
          const value =
            e.value ??
            (field.type.kind === 'message' ? {} : defaultScalar(field.type, this.schema));
          // defineProperty, not assignment: a key such as "__proto__" must become an own property.
          Object.defineProperty(map, String(key), {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        out[field.name] = map;
        return;
      }
    }
  }

  /** A `{...}` or `<...>` message (a map entry for map fields). */
  private parseMessageValue(field: FieldSchema, depth: number): PbMessage {
    const open = this.lexer.next();
    if (open.kind !== 'punct' || (open.text !== '{' && open.text !== '<')) {
      throw this.error(
        open,
        `${fieldName(field)} expects a message in { } or < >, got ${describeToken(open)}`,
      );
    }
    if (depth + 1 > this.maxDepth) {
      throw this.error(open, `messages are nested deeper than ${this.maxDepth} levels`);
    }
    if (field.label === 'map') {
      return this.parseFields(
        this.entryFields(field),
        `the map entry of ${fieldName(field)}`,
        open,
        depth + 1,
      );
    }
    return this.parseFields(this.fieldsOf(field.type.name), field.type.name, open, depth + 1);
  }

  /** A map field's entries are messages with `key` and `value` fields. */
  private entryFields(field: FieldSchema): ReadonlyMap<string, FieldSchema> {
    let fields = this.entrySchemas.get(field);
    if (fields === undefined) {
      const key: FieldSchema = {
        name: 'key',
        number: 1,
        label: 'optional',
        type: { kind: 'scalar', name: field.key ?? 'string' },
      };
      const value: FieldSchema = { name: 'value', number: 2, label: 'optional', type: field.type };
      fields = new Map([
        ['key', key],
        ['value', value],
      ]);
      this.entrySchemas.set(field, fields);
    }
    return fields;
  }
}

function fieldName(field: FieldSchema): string {
  return `field "${field.name}"`;
}
