// `ModelInferRequest` bytes -> the object `infer-codec.ts` reads, decoded by hand. proto-loader
// decoded each request through protobufjs's reader and then `toObject` with defaults, oneofs and
// string longs: two passes and a copy of every tensor. Here it is one pass, and
// `raw_input_contents` stay views of the received message (the data plane copies them once, into
// shared memory). The object has proto-loader's shape exactly (test/unit/grpc/infer-wire.test.ts
// checks them against each other), so the codec downstream is the same for both.

import type {
  InferInputTensor,
  InferParameter,
  ModelInferRequest,
  TensorListName,
} from './infer-codec.js';
import { MAX_TENSORS } from '../protocol/inference-request.js';
import type { TensorContents } from './tensor-contents.js';
import {
  tagField,
  tagWireType,
  WIRE_BYTES,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_VARINT,
  WireError,
  WireReader,
} from './wire-reader.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Decodes one message; throws WireError on bytes that are not a ModelInferRequest. The repeated
 * tensor fields are counted as they are read: at the first input or output past MAX_TENSORS the
 * rest of the message is left unread, and the counts go in `tensorCounts` (with the list cut
 * short), for the codec to refuse the request with; raw contents past MAX_TENSORS are skipped
 * and counted. A message of 2.5 M inputs used to become 2.5 M objects first (seconds, and a
 * gigabyte); reading all of it to count them still held the thread for ~0.1 s.
 */
export function decodeModelInferRequest(bytes: Buffer): ModelInferRequest {
  const r = new WireReader(bytes);
  let inputCount = 0;
  let outputCount = 0;
  let rawCount = 0;
  let model_name = '';
  let model_version = '';
  let id = '';
  const parameters: Record<string, InferParameter> = {};
  const inputs: InferInputTensor[] = [];
  const outputs: { name: string; parameters: Record<string, InferParameter> }[] = [];
  const raw_input_contents: Buffer[] = [];
  let cut: TensorListName | undefined;
  while (!r.done && cut === undefined) {
    const tag = r.varint();
    const wire = tagWireType(tag);
    switch (wire === WIRE_BYTES ? tagField(tag) : 0) {
      case 1:
        model_name = r.string();
        break;
      case 2:
        model_version = r.string();
        break;
      case 3:
        id = r.string();
        break;
      case 4:
        mapEntry(r.message(), parameters);
        break;
      case 5:
        if (++inputCount <= MAX_TENSORS) inputs.push(inputTensor(r.message()));
        else cut = 'inputs';
        break;
      case 6:
        if (++outputCount <= MAX_TENSORS) outputs.push(outputTensor(r.message()));
        else cut = 'outputs';
        break;
      case 7:
        if (++rawCount <= MAX_TENSORS) raw_input_contents.push(r.bytes());
        else r.skip(wire);
        break;
      default:
        r.skip(wire);
    }
  }
  const msg: Mutable<ModelInferRequest> = {
    model_name,
    model_version,
    id,
    parameters,
    inputs,
    outputs,
    raw_input_contents,
  };
  // Set only when cut short, so an ordinary request keeps proto-loader's shape exactly.
  if (cut !== undefined) {
    msg.tensorCounts = { inputs: inputCount, outputs: outputCount, raw: rawCount, cut };
  } else if (rawCount > MAX_TENSORS) {
    msg.tensorCounts = { inputs: inputCount, outputs: outputCount, raw: rawCount };
  }
  return msg;
}

function inputTensor(r: WireReader): InferInputTensor {
  let name = '';
  let datatype = '';
  const shape: string[] = [];
  const parameters: Record<string, InferParameter> = {};
  let contents: TensorContents | null = null;
  while (!r.done) {
    const tag = r.varint();
    const wire = tagWireType(tag);
    switch (tagField(tag)) {
      case 1:
        if (wire !== WIRE_BYTES) r.skip(wire);
        else name = r.string();
        break;
      case 2:
        if (wire !== WIRE_BYTES) r.skip(wire);
        else datatype = r.string();
        break;
      case 3:
        repeated(r, wire, WIRE_VARINT, () => shape.push(r.int64String()));
        break;
      case 4:
        if (wire !== WIRE_BYTES) r.skip(wire);
        else mapEntry(r.message(), parameters);
        break;
      case 5:
        if (wire !== WIRE_BYTES) r.skip(wire);
        // Sent twice, the last one stands, as protobufjs (the decoder this replaces) reads it.
        else contents = tensorContents(r.message(), emptyContents());
        break;
      default:
        r.skip(wire);
    }
  }
  return { name, datatype, shape, parameters, contents };
}

function outputTensor(r: WireReader): {
  name: string;
  parameters: Record<string, InferParameter>;
} {
  let name = '';
  const parameters: Record<string, InferParameter> = {};
  while (!r.done) {
    const tag = r.varint();
    const wire = tagWireType(tag);
    const field = wire === WIRE_BYTES ? tagField(tag) : 0;
    if (field === 1) name = r.string();
    else if (field === 2) mapEntry(r.message(), parameters);
    else r.skip(wire);
  }
  return { name, parameters };
}

function emptyContents(): Mutable<Required<TensorContents>> {
  return {
    bool_contents: [],
    int_contents: [],
    int64_contents: [],
    uint_contents: [],
    uint64_contents: [],
    fp32_contents: [],
    fp64_contents: [],
    bytes_contents: [],
  };
}

function tensorContents(
  r: WireReader,
  c: Mutable<Required<TensorContents>>,
): Mutable<Required<TensorContents>> {
  const bools = c.bool_contents as boolean[];
  const ints = c.int_contents as number[];
  const int64s = c.int64_contents as string[];
  const uints = c.uint_contents as number[];
  const uint64s = c.uint64_contents as string[];
  const bytes = c.bytes_contents as Uint8Array[];
  while (!r.done) {
    const tag = r.varint();
    const wire = tagWireType(tag);
    switch (tagField(tag)) {
      case 1:
        repeated(r, wire, WIRE_VARINT, () => bools.push(r.varint() !== 0));
        break;
      case 2:
        repeated(r, wire, WIRE_VARINT, () => ints.push(r.int32()));
        break;
      case 3:
        repeated(r, wire, WIRE_VARINT, () => int64s.push(r.int64String()));
        break;
      case 4:
        repeated(r, wire, WIRE_VARINT, () => uints.push(r.uint32()));
        break;
      case 5:
        repeated(r, wire, WIRE_VARINT, () => uint64s.push(r.uint64String()));
        break;
      case 6:
        if (wire === WIRE_BYTES) appendRun(c, 'fp32_contents', r.packedFloats(4));
        else repeated(r, wire, WIRE_FIXED32, () => (c.fp32_contents as number[]).push(r.float()));
        break;
      case 7:
        if (wire === WIRE_BYTES) appendRun(c, 'fp64_contents', r.packedFloats(8));
        else repeated(r, wire, WIRE_FIXED64, () => (c.fp64_contents as number[]).push(r.double()));
        break;
      case 8:
        if (wire !== WIRE_BYTES) r.skip(wire);
        else bytes.push(r.bytes());
        break;
      default:
        r.skip(wire);
    }
  }
  return c;
}

/**
 * A packed run of floats or doubles: the field's array when it is the first run (the usual case: one
 * run per field), else appended to what earlier runs or single values gave.
 */
function appendRun(
  c: Mutable<Required<TensorContents>>,
  key: 'fp32_contents' | 'fp64_contents',
  run: number[],
): void {
  const have = c[key] as number[];
  if (have.length === 0) c[key] = run;
  else for (const v of run) have.push(v);
}

/**
 * A repeated scalar: packed (one length-delimited run, what proto3 writers send) or one value per
 * tag (what a parser must also accept). Any other wire type is an unknown spelling, skipped.
 */
function repeated(r: WireReader, wire: number, element: number, readOne: () => void): void {
  if (wire === element) {
    readOne();
    return;
  }
  if (wire !== WIRE_BYTES) {
    r.skip(wire);
    return;
  }
  const end = r.lengthEnd();
  // `readOne` reads from `r` itself; a value that crosses the run's end is caught after it.
  while (r.at < end) readOne();
  if (r.at !== end) throw new WireError('a packed field runs past its length');
}

/** One `map<string, InferParameter>` entry: key 1, value 2. A later duplicate key wins. */
function mapEntry(r: WireReader, into: Record<string, InferParameter>): void {
  let key = '';
  let value: InferParameter = {};
  while (!r.done) {
    const tag = r.varint();
    const wire = tagWireType(tag);
    const field = wire === WIRE_BYTES ? tagField(tag) : 0;
    if (field === 1) key = r.string();
    else if (field === 2) value = parameter(r.message());
    else r.skip(wire);
  }
  into[key] = value;
}

/** `InferParameter`, as proto-loader gives it with `oneofs`: the member set, and its name. */
function parameter(r: WireReader): InferParameter {
  let p: InferParameter = {};
  while (!r.done) {
    const tag = r.varint();
    const wire = tagWireType(tag);
    // The last member on the wire is the one set, as for any oneof.
    switch (tagField(tag) * 8 + wire) {
      case 1 * 8 + WIRE_VARINT:
        p = { bool_param: r.varint() !== 0, parameter_choice: 'bool_param' };
        break;
      case 2 * 8 + WIRE_VARINT:
        p = { int64_param: r.int64String(), parameter_choice: 'int64_param' };
        break;
      case 3 * 8 + WIRE_BYTES:
        p = { string_param: r.string(), parameter_choice: 'string_param' };
        break;
      case 4 * 8 + WIRE_FIXED64:
        p = { double_param: r.double(), parameter_choice: 'double_param' };
        break;
      case 5 * 8 + WIRE_VARINT:
        p = { uint64_param: r.uint64String(), parameter_choice: 'uint64_param' };
        break;
      default:
        r.skip(wire);
    }
  }
  return p;
}
