// The message descriptor the text-format and JSON readers walk: plain data describing a proto3 schema
// (messages, fields, enums). `generated/model-config-schema.ts` holds Triton's ModelConfig in this form.

/** Protobuf scalar types as they are spelled in a .proto file. */
export type ScalarType =
  | 'double'
  | 'float'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64'
  | 'bool'
  | 'string'
  | 'bytes';

export type FieldType =
  | { readonly kind: 'scalar'; readonly name: ScalarType }
  | { readonly kind: 'enum'; readonly name: string }
  | { readonly kind: 'message'; readonly name: string };

export interface FieldSchema {
  readonly name: string;
  readonly number: number;
  /** `map` fields are repeated key/value entries; `type` is then the value type. */
  readonly label: 'optional' | 'repeated' | 'map';
  readonly type: FieldType;
  /** Key type of a `map` field. */
  readonly key?: ScalarType;
  /** The oneof this field belongs to: setting two members of one oneof is an error. */
  readonly oneof?: string;
}

/**
 * A whole schema. Message and enum names are package-relative full names (`ModelConfig`,
 * `ModelOptimizationPolicy.Graph`). Fields are listed in declaration order, which is the order
 * protobuf's JSON printer (and so Triton's `/config`) uses.
 */
export interface ProtoSchema {
  readonly enums: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly messages: Readonly<Record<string, readonly FieldSchema[]>>;
}

/** A schema with name lookups built once; see `compileSchema`. */
export interface CompiledSchema {
  readonly source: ProtoSchema;
  /** message name -> field name -> field */
  readonly fields: ReadonlyMap<string, ReadonlyMap<string, FieldSchema>>;
  /** message name -> lowerCamelCase JSON name (`maxBatchSize`) -> field */
  readonly jsonFields: ReadonlyMap<string, ReadonlyMap<string, FieldSchema>>;
  /** enum name -> (value name -> number, number -> first value name) */
  readonly enums: ReadonlyMap<
    string,
    { readonly byName: ReadonlyMap<string, number>; readonly byNumber: ReadonlyMap<number, string> }
  >;
}

const compiled = new WeakMap<ProtoSchema, CompiledSchema>();

/** Builds (once per schema object) the maps the parser and the JSON printer look names up in. */
export function compileSchema(schema: ProtoSchema): CompiledSchema {
  const cached = compiled.get(schema);
  if (cached !== undefined) return cached;
  const fields = new Map<string, ReadonlyMap<string, FieldSchema>>();
  const jsonFields = new Map<string, ReadonlyMap<string, FieldSchema>>();
  for (const [message, list] of Object.entries(schema.messages)) {
    fields.set(message, new Map(list.map((f) => [f.name, f])));
    jsonFields.set(message, new Map(list.map((f) => [jsonName(f.name), f])));
  }
  const enums = new Map<
    string,
    { byName: ReadonlyMap<string, number>; byNumber: ReadonlyMap<number, string> }
  >();
  for (const [name, values] of Object.entries(schema.enums)) {
    const byNumber = new Map<number, string>();
    // An aliased number keeps its first name, as protobuf does.
    for (const [value, n] of Object.entries(values)) if (!byNumber.has(n)) byNumber.set(n, value);
    enums.set(name, { byName: new Map(Object.entries(values)), byNumber });
  }
  const result: CompiledSchema = { source: schema, fields, jsonFields, enums };
  compiled.set(schema, result);
  return result;
}

/** Integer scalar types whose values do not fit a JS number exactly (protobuf JSON writes them as strings). */
export function is64Bit(t: ScalarType): boolean {
  return t === 'int64' || t === 'uint64' || t === 'sint64' || t === 'fixed64' || t === 'sfixed64';
}

/**
 * protobuf's default JSON name for a field (descriptor.cc ToJsonName): each `_` is dropped and the
 * letter after it upper-cased, so `max_batch_size` is `maxBatchSize`. model_config.proto sets no
 * `json_name` option, so this is every field's JSON name.
 */
export function jsonName(protoName: string): string {
  let out = '';
  let upper = false;
  for (const c of protoName) {
    if (c === '_') upper = true;
    else {
      out += upper ? c.toUpperCase() : c;
      upper = false;
    }
  }
  return out;
}

/**
 * The values each integer type may take. 64-bit types stop at +-(2^53-1): parsed configs are plain
 * JSON-like data, so a value must fit a JS number exactly (no Triton config field comes near).
 */
export const INT_RANGES: Readonly<Partial<Record<ScalarType, readonly [bigint, bigint]>>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 53n - 1n), 2n ** 53n - 1n],
  sint64: [-(2n ** 53n - 1n), 2n ** 53n - 1n],
  sfixed64: [-(2n ** 53n - 1n), 2n ** 53n - 1n],
  uint64: [0n, 2n ** 53n - 1n],
  fixed64: [0n, 2n ** 53n - 1n],
};
