// A tiny ONNX graph builder over onnx-proto's protobufjs classes: value infos, nodes, initializers and
// the final ModelProto bytes. Only what the bundled and fixture models need; no shape inference.

import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/** ONNX IR version 8 goes with opset 17 (ONNX 1.12); onnxruntime-node 1.30 loads both. */
export const IR_VERSION = 8;
export const OPSET_VERSION = 17;

/** TensorProto.DataType numbers, by the element names the generators use. */
export const ELEM = {
  FLOAT: onnx.TensorProto.DataType.FLOAT,
  UINT8: onnx.TensorProto.DataType.UINT8,
  INT8: onnx.TensorProto.DataType.INT8,
  UINT16: onnx.TensorProto.DataType.UINT16,
  INT16: onnx.TensorProto.DataType.INT16,
  INT32: onnx.TensorProto.DataType.INT32,
  INT64: onnx.TensorProto.DataType.INT64,
  STRING: onnx.TensorProto.DataType.STRING,
  BOOL: onnx.TensorProto.DataType.BOOL,
  FLOAT16: onnx.TensorProto.DataType.FLOAT16,
  DOUBLE: onnx.TensorProto.DataType.DOUBLE,
  UINT32: onnx.TensorProto.DataType.UINT32,
  UINT64: onnx.TensorProto.DataType.UINT64,
} as const;

export type ElemType = (typeof ELEM)[keyof typeof ELEM];

/**
 * A dimension: a fixed size, or a symbolic name for a dynamic one. Named symbols (dim_param) are used
 * rather than empty dims because ORT reports them back in `inputMetadata[i].shape` as that string,
 * which is what Triton-style autocomplete reads as -1.
 */
export type Dim = number | string;

export function tensorValue(
  name: string,
  elemType: ElemType,
  dims: readonly Dim[],
): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: {
          dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })),
        },
      },
    },
  };
}

export function node(
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  name: string,
  attribute: onnxProto.onnx.IAttributeProto[] = [],
): onnxProto.onnx.INodeProto {
  return { opType, input: [...inputs], output: [...outputs], name, attribute };
}

export function intAttribute(name: string, value: number): onnxProto.onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
}

export function intsAttribute(
  name: string,
  values: readonly number[],
): onnxProto.onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: [...values] };
}

/**
 * An FP32 initializer stored as raw_data. Written through a little-endian DataView (not the
 * Float32Array's own bytes) so the file is byte-identical on any host, as ONNX's raw_data demands.
 */
export function floatInitializer(
  name: string,
  dims: readonly number[],
  values: Float32Array,
): onnxProto.onnx.ITensorProto {
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== values.length) {
    throw new Error(
      `initializer ${name}: dims [${dims.join(',')}] hold ${count} values, got ${values.length}`,
    );
  }
  const raw = new Uint8Array(values.length * 4);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i] as number, true);
  return { name, dims: [...dims], dataType: ELEM.FLOAT, rawData: raw };
}

/** An INT32 initializer stored as raw_data, little-endian like `floatInitializer`. */
export function int32Initializer(
  name: string,
  dims: readonly number[],
  values: readonly number[],
): onnxProto.onnx.ITensorProto {
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== values.length) {
    throw new Error(
      `initializer ${name}: dims [${dims.join(',')}] hold ${count} values, got ${values.length}`,
    );
  }
  const raw = new Uint8Array(values.length * 4);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setInt32(i * 4, v, true));
  return { name, dims: [...dims], dataType: ELEM.INT32, rawData: raw };
}

/** An INT64 initializer stored as raw_data, little-endian like `floatInitializer`. */
export function int64Initializer(
  name: string,
  dims: readonly number[],
  values: readonly bigint[],
): onnxProto.onnx.ITensorProto {
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== values.length) {
    throw new Error(
      `initializer ${name}: dims [${dims.join(',')}] hold ${count} values, got ${values.length}`,
    );
  }
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, v, true));
  return { name, dims: [...dims], dataType: ELEM.INT64, rawData: raw };
}

export interface GraphSpec {
  readonly name: string;
  readonly inputs: readonly onnxProto.onnx.IValueInfoProto[];
  readonly outputs: readonly onnxProto.onnx.IValueInfoProto[];
  readonly nodes: readonly onnxProto.onnx.INodeProto[];
  readonly initializers?: readonly onnxProto.onnx.ITensorProto[];
  /** Intermediate value types, e.g. those of an embedded graph; ORT infers them when absent. */
  readonly valueInfo?: readonly onnxProto.onnx.IValueInfoProto[];
  readonly docString?: string;
  /** IR and opset versions when the graph needs newer ones than IR_VERSION / OPSET_VERSION. */
  readonly irVersion?: number;
  readonly opsetVersion?: number;
}

/**
 * Encodes a complete model. Nothing time- or host-dependent goes in (no producer version, no dates),
 * so the same spec always yields the same bytes.
 */
export function encodeModel(spec: GraphSpec): Uint8Array {
  const model: onnxProto.onnx.IModelProto = {
    irVersion: spec.irVersion ?? IR_VERSION,
    opsetImport: [{ domain: '', version: spec.opsetVersion ?? OPSET_VERSION }],
    producerName: 'infernode-generate-models',
    docString: spec.docString ?? '',
    graph: {
      name: spec.name,
      node: [...spec.nodes],
      input: [...spec.inputs],
      output: [...spec.outputs],
      initializer: [...(spec.initializers ?? [])],
      valueInfo: [...(spec.valueInfo ?? [])],
    },
  };
  const problem = onnx.ModelProto.verify(model);
  if (problem !== null) throw new Error(`model ${spec.name} is not a valid ModelProto: ${problem}`);
  return onnx.ModelProto.encode(model).finish();
}
