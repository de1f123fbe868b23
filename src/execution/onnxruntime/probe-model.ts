// A ~70-byte ONNX model (y = Identity(x), float32 [N]) encoded by hand, so the server can probe what
// the installed onnxruntime-node accepts without shipping or generating a model file, and without
// a protobuf library at runtime (onnx-proto is a dev dependency only).

// Protobuf wire format: a field is a varint key (field number << 3 | wire type), then a varint
// (wire type 0) or a varint length and that many bytes (wire type 2).
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

const int = (field: number, n: number): number[] => [...varint(field << 3), ...varint(n)];
const bytes = (field: number, b: readonly number[]): number[] => [
  ...varint((field << 3) | 2),
  ...varint(b.length),
  ...b,
];
const text = (field: number, s: string): number[] => bytes(field, [...Buffer.from(s, 'utf8')]);

const FLOAT = 1; // TensorProto.DataType.FLOAT

// ValueInfoProto{ name=1, type=2: TypeProto{ tensor_type=1: { elem_type=1, shape=2: { dim=1:
// { dim_param=2 } } } } }: a float tensor of one symbolic dim "N".
function floatVector(name: string): number[] {
  const shape = bytes(1, text(2, 'N'));
  const tensorType = [...int(1, FLOAT), ...bytes(2, shape)];
  return [...text(1, name), ...bytes(2, bytes(1, tensorType))];
}

function encodeIdentityModel(): Uint8Array {
  // NodeProto{ input=1, output=2, op_type=4 }
  const node = [...text(1, 'x'), ...text(2, 'y'), ...text(4, 'Identity')];
  // GraphProto{ node=1, name=2, input=11, output=12 }
  const graph = [
    ...bytes(1, node),
    ...text(2, 'probe'),
    ...bytes(11, floatVector('x')),
    ...bytes(12, floatVector('y')),
  ];
  // ModelProto{ ir_version=1 (8), opset_import=8 { domain="" , version=13 }, graph=7 }
  const opset = [...text(1, ''), ...int(2, 13)];
  return Uint8Array.from([...int(1, 8), ...bytes(8, opset), ...bytes(7, graph)]);
}

/** The probe model's bytes (a fresh copy per call: the binding may keep a reference). */
export function identityProbeModel(): Uint8Array {
  return encodeIdentityModel();
}

export const PROBE_INPUT = 'x';
export const PROBE_OUTPUT = 'y';
