// protobuf's JSON mapping read against the same schema as the text format: JSON text -> the PbMessage
// the text-format parser returns (proto field names, enums as names, 64-bit integers as safe numbers,
// maps as records). It accepts what Triton's JsonToModelConfig accepts (JsonStringToMessage with
// case_insensitive_enum_parsing and no unknown fields); every error names the field path.

import { fail, type InferenceServerError } from '../../errors.js';
import type { PbMessage, PbValue } from './parser.js';
import type { ScalarValue } from './scalars.js';
import {
  compileSchema,
  INT_RANGES,
  type CompiledSchema,
  type FieldSchema,
  type FieldType,
  type ProtoSchema,
  type ScalarType,
} from './schema.js';
import { suggestField } from './suggest.js';

export interface JsonParseOptions {
  /** What errors name the document by, e.g. `config JSON`. */
  readonly label: string;
}

/**
 * Deepest bracket nesting allowed, counted as the HTTP decoder counts it (`{"a":[1]}` is 2): Triton's
 * HTTP_MAX_JSON_NESTING_DEPTH, which protobuf's own parser limit (100) matches.
 */
export const MAX_JSON_DEPTH = 100;

/** The largest finite float32: protobuf refuses a `float` field beyond it. */
const FLOAT_MAX = 3.4028234663852886e38;
/** A JSON number's text, for numbers written as strings (`"5"`, `"1e3"`), which protobuf accepts. */
const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;
/** Standard or URL-safe base64, padded or not: protobuf's JSON form of `bytes`. */
const BASE64_TEXT = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2,3}={0,2})?$/;

/** Parses `text` as the JSON form of message `root` in `schema`. Throws CONFIG_SYNTAX on any error. */
export function parseJsonProto(
  text: string,
  schema: ProtoSchema,
  root: string,
  options: JsonParseOptions,
): PbMessage {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw fail(
      'CONFIG_SYNTAX',
      `${options.label}: JSON nesting depth exceeds maximum allowed limit (${MAX_JSON_DEPTH})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw fail('CONFIG_SYNTAX', `${options.label}: not valid JSON: ${why.slice(0, 200)}`);
  }
  return new JsonReader(compileSchema(schema), options.label).message(value, root, '');
}

/**
 * True when brackets outside string literals nest deeper than `max`. Checked before JSON.parse so a
 * hostile document costs one pass, not a parse. A plain loop: configs are kilobytes, and the HTTP
 * decoder's faster scan lives in http/, a layer config/ may not import.
 */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      if (++depth > max) return true;
    } else if (c === '}' || c === ']') {
      depth--;
    }
  }
  return false;
}

function isObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** How a JSON value reads in an error message: `"FP32"`, `1.5`, `null`, `an array`, `an object`. */
function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}...` : v);
  return String(v);
}

/** `input[0]` + `dims` -> `input[0].dims`; the root's path is ''. */
function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

class JsonReader {
  constructor(
    private readonly schema: CompiledSchema,
    private readonly label: string,
  ) {}

  private error(path: string, message: string): InferenceServerError {
    return fail('CONFIG_SYNTAX', `${this.label}: ${path === '' ? '' : `${path}: `}${message}`);
  }

  message(value: unknown, type: string, path: string): PbMessage {
    const fields = this.schema.fields.get(type);
    const jsonFields = this.schema.jsonFields.get(type);
    if (fields === undefined || jsonFields === undefined) {
      throw fail('INTERNAL', `schema has no message ${type}`);
    }
    if (!isObject(value)) {
      throw this.error(path, `expected an object (${type}), got ${describe(value)}`);
    }
    const out: PbMessage = {};
    // proto field name -> the key that set it, so `max_batch_size` and `maxBatchSize` cannot both.
    const keys = new Map<string, string>();
    const oneofs = new Map<string, string>();
    for (const [key, v] of Object.entries(value)) {
      const field = fields.get(key) ?? jsonFields.get(key);
      if (field === undefined) {
        throw this.error(
          path,
          `unknown field "${key}" in ${type}${suggestField(key, fields.keys())}`,
        );
      }
      const other = keys.get(field.name);
      if (other !== undefined) {
        throw this.error(path, `"${other}" and "${key}" both set field ${field.name}`);
      }
      keys.set(field.name, key);
      // protobuf reads null as "not set" for every field of these types.
      if (v === null) continue;
      if (field.oneof !== undefined) {
        const member = oneofs.get(field.oneof);
        if (member !== undefined) {
          throw this.error(
            path,
            `"${member}" and "${key}" are both set, but only one member of oneof "${field.oneof}" may be`,
          );
        }
        oneofs.set(field.oneof, key);
      }
      out[field.name] = this.field(field, v, child(path, key));
    }
    return out;
  }

  private field(field: FieldSchema, v: unknown, path: string): PbValue {
    switch (field.label) {
      case 'optional':
        return this.value(field.type, v, path);
      case 'repeated':
        if (!Array.isArray(v)) throw this.error(path, `expected an array, got ${describe(v)}`);
        return v.map((e: unknown, i) => this.value(field.type, e, `${path}[${i}]`));
      case 'map': {
        if (!isObject(v)) throw this.error(path, `expected an object (a map), got ${describe(v)}`);
        const out: PbMessage = {};
        for (const [k, e] of Object.entries(v)) {
          const at = `${path}[${JSON.stringify(k)}]`;
          // defineProperty, not assignment: a key such as "__proto__" must become an own property.
          Object.defineProperty(out, this.mapKey(field.key ?? 'string', k, at), {
            value: this.value(field.type, e, at),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return out;
      }
    }
  }

  private value(type: FieldType, v: unknown, path: string): PbValue {
    switch (type.kind) {
      case 'message':
        return this.message(v, type.name, path);
      case 'enum':
        return this.enumValue(type.name, v, path);
      case 'scalar':
        return this.scalar(type.name, v, path);
    }
  }

  /**
   * A value name, or its number. Triton parses with case_insensitive_enum_parsing, so a name that
   * is not one is tried again in upper case (`"type_fp32"` is TYPE_FP32).
   */
  private enumValue(type: string, v: unknown, path: string): string {
    const en = this.schema.enums.get(type);
    if (en === undefined) throw fail('INTERNAL', `schema has no enum ${type}`);
    if (typeof v === 'string') {
      if (en.byName.has(v)) return v;
      const upper = v.toUpperCase();
      if (en.byName.has(upper)) return upper;
    } else if (typeof v === 'number' && Number.isInteger(v)) {
      const name = en.byNumber.get(v);
      if (name !== undefined) return name;
      throw this.error(path, `${type} has no value numbered ${v}`);
    }
    throw this.error(
      path,
      `expected one of ${[...en.byName.keys()].join(', ')}, got ${describe(v)}`,
    );
  }

  private scalar(type: ScalarType, v: unknown, path: string): ScalarValue {
    switch (type) {
      case 'bool':
        if (typeof v === 'boolean') return v;
        throw this.error(path, `expected true or false, got ${describe(v)}`);
      case 'string':
        if (typeof v === 'string') return v;
        throw this.error(path, `expected a string, got ${describe(v)}`);
      case 'bytes':
        // Stored as the text-format parser stores bytes: one char per byte.
        if (typeof v === 'string' && BASE64_TEXT.test(v)) {
          return Buffer.from(v, 'base64').toString('latin1');
        }
        throw this.error(path, `expected a base64 string (bytes), got ${describe(v)}`);
      case 'float':
      case 'double':
        return this.floating(type, v, path);
      default:
        return this.integer(type, v, path);
    }
  }

  /** A number, a number in a string, or "NaN" / "Infinity" / "-Infinity" (JSON has no such numbers). */
  private floating(type: 'float' | 'double', v: unknown, path: string): number {
    let n: number | undefined;
    if (typeof v === 'number') n = v;
    else if (v === 'NaN') n = NaN;
    else if (v === 'Infinity') n = Infinity;
    else if (v === '-Infinity') n = -Infinity;
    else if (typeof v === 'string' && NUMBER_TEXT.test(v)) n = Number(v);
    if (n === undefined) throw this.error(path, `expected a number (${type}), got ${describe(v)}`);
    if (type === 'float' && Number.isFinite(n) && Math.abs(n) > FLOAT_MAX) {
      throw this.error(path, `float value ${n} is out of range`);
    }
    return n;
  }

  /** An integral number, or a string holding one (protobuf writes 64-bit integers as strings). */
  private integer(type: ScalarType, v: unknown, path: string): number {
    const range = INT_RANGES[type];
    if (range === undefined) throw fail('INTERNAL', `no range for ${type}`);
    let exact: bigint | undefined;
    if (typeof v === 'number' && Number.isInteger(v)) exact = BigInt(v);
    else if (typeof v === 'string' && INTEGER_TEXT.test(v)) exact = BigInt(v);
    else if (typeof v === 'string' && NUMBER_TEXT.test(v) && Number.isInteger(Number(v))) {
      exact = BigInt(Number(v));
    }
    if (exact === undefined) {
      throw this.error(path, `expected an integer (${type}), got ${describe(v)}`);
    }
    if (exact < range[0] || exact > range[1]) {
      throw this.error(path, `${type} value ${exact} is out of range [${range[0]}, ${range[1]}]`);
    }
    return Number(exact);
  }

  /** JSON map keys are strings; integer and bool keys are checked and written as the text format's. */
  private mapKey(type: ScalarType, k: string, path: string): string {
    if (type === 'string') return k;
    if (type === 'bool') {
      if (k === 'true' || k === 'false') return k;
      throw this.error(path, `map key must be "true" or "false", got ${describe(k)}`);
    }
    // Digits only (leading zeros allowed, as protobuf's key parser allows them).
    if (!/^-?[0-9]+$/.test(k)) {
      throw this.error(path, `map key must be an integer (${type}), got ${describe(k)}`);
    }
    return String(this.integer(type, BigInt(k).toString(), path));
  }
}
