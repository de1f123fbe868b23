// The one datatype table: KServe datatype <-> config.pbtxt TYPE_* <-> ORT tensor type <-> byte size
// <-> TypedArray, the last also as a type (`NumericView<'FP32'>` is Float32Array). Everything else in
// infernode looks datatypes up here; nothing compares loose strings.

export const DATATYPES = [
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'FP32',
  'FP64',
  'BF16',
  'BYTES',
] as const;

/** A KServe v2 / Triton wire datatype. */
export type Datatype = (typeof DATATYPES)[number];

/** A config.pbtxt `DataType` enum name (TYPE_STRING is BYTES on the wire). */
export type ConfigDataType =
  | 'TYPE_BOOL'
  | 'TYPE_UINT8'
  | 'TYPE_UINT16'
  | 'TYPE_UINT32'
  | 'TYPE_UINT64'
  | 'TYPE_INT8'
  | 'TYPE_INT16'
  | 'TYPE_INT32'
  | 'TYPE_INT64'
  | 'TYPE_FP16'
  | 'TYPE_FP32'
  | 'TYPE_FP64'
  | 'TYPE_BF16'
  | 'TYPE_STRING';

/** onnxruntime-common's `Tensor.Type` names that infernode uses. */
export type OrtType =
  | 'bool'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float16'
  | 'float32'
  | 'float64'
  | 'string';

/** The datatypes with a fixed element size: every one but BYTES. */
export type NumericDatatype = Exclude<Datatype, 'BYTES'>;

/**
 * The TypedArray each fixed-size datatype is viewed as: the type-level twin of the table's `array`
 * column, as onnxruntime-common's tensor-impl-type-mapping pairs its runtime map with a type map.
 * `NUMERIC_ARRAYS` below is checked against it, so the compiler keeps the two in step. FP16 and
 * BF16 are raw 16-bit patterns; BOOL is one byte per element.
 */
export interface NumericArrayTypes {
  BOOL: Uint8Array;
  UINT8: Uint8Array;
  UINT16: Uint16Array;
  UINT32: Uint32Array;
  UINT64: BigUint64Array;
  INT8: Int8Array;
  INT16: Int16Array;
  INT32: Int32Array;
  INT64: BigInt64Array;
  FP16: Uint16Array;
  FP32: Float32Array;
  FP64: Float64Array;
  BF16: Uint16Array;
}

/** The TypedArray of a fixed-size datatype; without an argument, any of them. */
export type NumericView<D extends NumericDatatype = NumericDatatype> = NumericArrayTypes[D];

/** A TypedArray constructor in the (buffer, byteOffset, length) form that views use. */
export interface ViewConstructor<T extends ArrayBufferView> {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

// `satisfies` checks every datatype against the type map (a missing, extra or wrong entry fails to
// compile) while keeping the real constructor types, whose other forms (`new (length)`) clients use.
const NUMERIC_ARRAYS = {
  BOOL: Uint8Array,
  UINT8: Uint8Array,
  UINT16: Uint16Array,
  UINT32: Uint32Array,
  UINT64: BigUint64Array,
  INT8: Int8Array,
  INT16: Int16Array,
  INT32: Int32Array,
  INT64: BigInt64Array,
  FP16: Uint16Array,
  FP32: Float32Array,
  FP64: Float64Array,
  BF16: Uint16Array,
} as const satisfies { readonly [D in NumericDatatype]: ViewConstructor<NumericView<D>> };

type NumericArrayCtor = (typeof NUMERIC_ARRAYS)[NumericDatatype];

export interface DatatypeInfo {
  readonly name: Datatype;
  readonly config: ConfigDataType;
  /** Protobuf enum number of `config` (model_config.proto DataType). */
  readonly configEnum: number;
  /** Bytes per element; 0 for BYTES (variable length, 4-byte LE length prefix on the wire). */
  readonly byteSize: number;
  /** ORT element type, or null where onnxruntime-node has none (BF16). */
  readonly ort: OrtType | null;
  /**
   * The TypedArray that views raw little-endian bytes of this type (its `NumericView`). FP16 and BF16
   * are carried as raw 16-bit patterns (Uint16Array); BOOL as one byte per element. Null for BYTES.
   */
  readonly array: NumericArrayCtor | null;
  /** How JSON `data` elements of this type are written and read. */
  readonly json: 'bool' | 'int' | 'bigint' | 'float' | 'half' | 'bfloat' | 'string';
}

const row = (
  name: Datatype,
  config: ConfigDataType,
  configEnum: number,
  byteSize: number,
  ort: OrtType | null,
  json: DatatypeInfo['json'],
): DatatypeInfo =>
  Object.freeze({
    name,
    config,
    configEnum,
    byteSize,
    ort,
    array: name === 'BYTES' ? null : NUMERIC_ARRAYS[name],
    json,
  });

export const DATATYPE_TABLE: Readonly<Record<Datatype, DatatypeInfo>> = Object.freeze({
  BOOL: row('BOOL', 'TYPE_BOOL', 1, 1, 'bool', 'bool'),
  UINT8: row('UINT8', 'TYPE_UINT8', 2, 1, 'uint8', 'int'),
  UINT16: row('UINT16', 'TYPE_UINT16', 3, 2, 'uint16', 'int'),
  UINT32: row('UINT32', 'TYPE_UINT32', 4, 4, 'uint32', 'int'),
  UINT64: row('UINT64', 'TYPE_UINT64', 5, 8, 'uint64', 'bigint'),
  INT8: row('INT8', 'TYPE_INT8', 6, 1, 'int8', 'int'),
  INT16: row('INT16', 'TYPE_INT16', 7, 2, 'int16', 'int'),
  INT32: row('INT32', 'TYPE_INT32', 8, 4, 'int32', 'int'),
  INT64: row('INT64', 'TYPE_INT64', 9, 8, 'int64', 'bigint'),
  FP16: row('FP16', 'TYPE_FP16', 10, 2, 'float16', 'half'),
  FP32: row('FP32', 'TYPE_FP32', 11, 4, 'float32', 'float'),
  FP64: row('FP64', 'TYPE_FP64', 12, 8, 'float64', 'float'),
  BF16: row('BF16', 'TYPE_BF16', 14, 2, null, 'bfloat'),
  BYTES: row('BYTES', 'TYPE_STRING', 13, 0, 'string', 'string'),
});

const BY_CONFIG = new Map<string, DatatypeInfo>(
  Object.values(DATATYPE_TABLE).map((d) => [d.config, d]),
);
const BY_ORT = new Map<string, DatatypeInfo>(
  Object.values(DATATYPE_TABLE)
    .filter((d) => d.ort !== null)
    .map((d) => [d.ort as string, d]),
);

export function isDatatype(s: unknown): s is Datatype {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(DATATYPE_TABLE, s);
}

export function datatypeInfo(d: Datatype): DatatypeInfo {
  return DATATYPE_TABLE[d];
}

/** `TYPE_FP32` -> FP32; undefined for TYPE_INVALID or an unknown name. */
export function fromConfigType(config: string): Datatype | undefined {
  return BY_CONFIG.get(config)?.name;
}

/** ORT `float32` -> FP32; undefined for a type infernode cannot serve. */
export function fromOrtType(ort: string): Datatype | undefined {
  return BY_ORT.get(ort)?.name;
}

/**
 * The datatype's TypedArray constructor, typed by the datatype: `numericArray('FP32')` constructs
 * Float32Array views. The table's `array` column holds the same constructors, for code that only
 * has a runtime `Datatype`.
 */
export function numericArray<D extends NumericDatatype>(d: D): ViewConstructor<NumericView<D>> {
  const views: { readonly [K in NumericDatatype]: ViewConstructor<NumericView<K>> } =
    NUMERIC_ARRAYS;
  return views[d];
}
