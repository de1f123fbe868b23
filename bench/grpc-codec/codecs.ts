// The ModelInfer codecs that bench/grpc-codec.ts measures against each other, behind one shape:
// the hand-written one the server uses (src/grpc/infer-*-wire.ts), protobufjs static code
// generated from the vendored protos (./generated/, by scripts/generate-grpc-messages.ts), and
// proto-loader (protobufjs reflection + toObject/fromObject, what the hand-written codec replaced).
// test/unit/grpc/generated-codec.test.ts holds the generated code and the hand-written codec to
// the same round trips.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadPackageDefinition, type MethodDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import {
  decodeModelInferRequest,
  encodeModelInferResponse,
  encodeModelStreamInferResponse,
  PROTO_OPTIONS,
  type InferInputTensor,
  type InferParameter,
  type ModelInferRequest,
  type ModelInferResponse,
  type ModelStreamInferResponse,
  type TensorContents,
} from 'infernode/tooling';
import type { inference } from './generated/infer-messages.js';

/** How one codec decodes a request and encodes the two answers. */
export interface InferCodec {
  readonly decodeRequest: (bytes: Buffer) => unknown;
  readonly encodeResponse: (r: ModelInferResponse) => Uint8Array;
  readonly encodeStreamResponse: (s: ModelStreamInferResponse) => Uint8Array;
}

export type Generated = typeof inference;

/**
 * The generated module, loaded from the source tree: tsc compiles TypeScript only, so the
 * generated JavaScript is not in dist/ (dist/bench/grpc-codec/ -> bench/grpc-codec/generated/).
 */
export async function loadGenerated(): Promise<Generated> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '..', '..', '..');
  const file = path.join(root, 'bench', 'grpc-codec', 'generated', 'infer-messages.js');
  const mod = (await import(pathToFileURL(file).href)) as { inference: Generated };
  return mod.inference;
}

export const handWritten: InferCodec = {
  decodeRequest: decodeModelInferRequest,
  encodeResponse: (r) => encodeModelInferResponse(r),
  encodeStreamResponse: (s) => encodeModelStreamInferResponse(s),
};

/** int64 and uint64 from generated code: a number, or a `Long` past 2^53 or when `long` is installed. */
type Int64 = number | { toString(): string };

const int64String = (v: Int64): string => (typeof v === 'number' ? String(v) : v.toString());

/** The generated InferParameter, in proto-loader's `oneofs` + `longs: String` shape. */
function parameter(p: inference.InferParameter.$Properties): InferParameter {
  switch ((p as { parameter_choice?: string }).parameter_choice) {
    case 'bool_param':
      return { bool_param: p.bool_param === true, parameter_choice: 'bool_param' };
    case 'int64_param':
      return { int64_param: int64String(p.int64_param ?? 0), parameter_choice: 'int64_param' };
    case 'string_param':
      return { string_param: p.string_param ?? '', parameter_choice: 'string_param' };
    case 'double_param':
      return { double_param: p.double_param ?? 0, parameter_choice: 'double_param' };
    case 'uint64_param':
      return { uint64_param: int64String(p.uint64_param ?? 0), parameter_choice: 'uint64_param' };
    default:
      return {};
  }
}

const NO_PARAMETERS = {};

function parameters(
  map: Record<string, inference.InferParameter.$Properties> | null | undefined,
): Record<string, InferParameter> {
  const out: Record<string, InferParameter> = {};
  for (const key in map) out[key] = parameter(map[key] as inference.InferParameter.$Properties);
  return out;
}

function contents(c: inference.InferTensorContents.$Properties): TensorContents {
  return {
    bool_contents: c.bool_contents ?? [],
    int_contents: c.int_contents ?? [],
    int64_contents: (c.int64_contents ?? []).map(int64String),
    uint_contents: c.uint_contents ?? [],
    uint64_contents: (c.uint64_contents ?? []).map(int64String),
    fp32_contents: c.fp32_contents ?? [],
    fp64_contents: c.fp64_contents ?? [],
    bytes_contents: c.bytes_contents ?? [],
  };
}

/**
 * A generated ModelInferRequest as the object infer-codec.ts reads (proto-loader's shape, as the
 * hand-written decoder gives it): what serving it would take short of rewriting infer-codec.ts
 * around the generated types. Tensor bytes stay the views the generated decoder made.
 */
export function adaptRequest(m: inference.ModelInferRequest): ModelInferRequest {
  const inputs: InferInputTensor[] = [];
  for (const t of m.inputs) {
    inputs.push({
      name: t.name ?? '',
      datatype: t.datatype ?? '',
      shape: (t.shape ?? []).map(int64String),
      parameters: t.parameters === undefined ? NO_PARAMETERS : parameters(t.parameters),
      contents: t.contents == null ? null : contents(t.contents),
    });
  }
  const outputs: { name: string; parameters: Record<string, InferParameter> }[] = [];
  for (const o of m.outputs)
    outputs.push({ name: o.name ?? '', parameters: parameters(o.parameters) });
  return {
    model_name: m.model_name,
    model_version: m.model_version,
    id: m.id,
    parameters: parameters(m.parameters),
    inputs,
    outputs,
    raw_input_contents: m.raw_input_contents,
  };
}

/** The generated code as it comes: decode to its message classes, encode from plain objects. */
export function generatedCodec(g: Generated): InferCodec {
  return {
    decodeRequest: (bytes) => g.ModelInferRequest.decode(bytes),
    // The response objects are the proto's fields already (infer-codec.ts's ModelInferResponse).
    encodeResponse: (r) =>
      g.ModelInferResponse.encode(r as inference.ModelInferResponse.$Properties).finish(),
    encodeStreamResponse: (s) =>
      g.ModelStreamInferResponse.encode(
        s as unknown as inference.ModelStreamInferResponse.$Properties,
      ).finish(),
  };
}

/**
 * The generated encoders with `finish(true)`: protobufjs 8's Writer writes into one growing buffer
 * and `finish()` copies it into an exact-size one; `finish(true)` returns a view of the writer's
 * buffer instead (larger than the message: a caller must not keep it past the write).
 */
export function generatedSharedCodec(g: Generated): InferCodec {
  return {
    ...generatedCodec(g),
    encodeResponse: (r) =>
      g.ModelInferResponse.encode(r as inference.ModelInferResponse.$Properties).finish(true),
    encodeStreamResponse: (s) =>
      g.ModelStreamInferResponse.encode(
        s as unknown as inference.ModelStreamInferResponse.$Properties,
      ).finish(true),
  };
}

/** The generated decoder followed by adaptRequest: a request as the server's codec reads it. */
export function generatedAdaptedCodec(g: Generated): InferCodec {
  const plain = generatedCodec(g);
  return {
    ...plain,
    decodeRequest: (bytes) => adaptRequest(g.ModelInferRequest.decode(bytes)),
  };
}

type Method = MethodDefinition<object, object>;

/** proto-loader with the server's options: protobufjs reflection, then toObject / fromObject. */
export function protoLoaderCodec(): InferCodec & {
  readonly encodeRequest: (m: object) => Buffer;
  readonly decodeResponse: (b: Buffer) => unknown;
} {
  const service = (
    loadPackageDefinition(loadSync('grpc_service.proto', PROTO_OPTIONS)) as unknown as {
      inference: { GRPCInferenceService: { service: Record<string, Method> } };
    }
  ).inference.GRPCInferenceService.service;
  const infer = service['ModelInfer'] as Method;
  const stream = service['ModelStreamInfer'] as Method;
  return {
    decodeRequest: (bytes) => infer.requestDeserialize(bytes),
    encodeResponse: (r) => infer.responseSerialize(r),
    encodeStreamResponse: (s) => stream.responseSerialize(s),
    encodeRequest: (m) => infer.requestSerialize(m),
    decodeResponse: (b) => infer.responseDeserialize(b),
  };
}
