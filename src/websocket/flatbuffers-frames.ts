// The FlatBuffers encoding of WebSocket frames (subprotocol infernode.flatbuffers.v1), using the
// TypeScript flatc generated from schemas/infernode-ws.fbs. Server side: ClientFrame in,
// ServerFrame out.
//
// The FlatBuffers runtime does no bounds checking (reads past the end yield zeros, and a vector view
// is built from whatever offset and length the buffer claims), so every vector is checked against
// the frame before it is used, and every count against what the frame's size could hold
// (flatbuffers-bounds.ts). The repository frames have their own module beside this one.

import { Builder, ByteBuffer, type Offset } from 'flatbuffers';
import { fail, toServerError, type WireError } from '../errors.js';
import type {
  DecodedInput,
  DecodedOutput,
  InferenceResponse,
} from '../protocol/inference-request.js';
import { readParameters } from '../protocol/parameters.js';
import { withSequenceFields, type SequenceFields } from '../protocol/sequence-parameters.js';
import type { InferRequest } from '../../schemas/generated/infernode-ws_generated.js';
import {
  ClientFrame,
  Error as FbError,
  ServerFrame,
  Tensor,
} from '../../schemas/generated/infernode-ws_generated.js';
import {
  checkTensorCount,
  inputRegion,
  keepPayload,
  kindOf,
  optionalVersion,
  requireModel,
} from './frame-fields.js';
import { ABSENT_ID, badIdError, readStringId, type FrameId, type IdReading } from './frame-id.js';
import { checkByteVector, checkCount } from './flatbuffers-bounds.js';
import { readParameterTables, writeParameterTables } from './flatbuffers-parameters.js';
import {
  encodeFlatbuffersRepositoryAnswer,
  readRepositoryFrame,
  repositoryTables,
  repositoryTableId,
  type RepositoryTable,
} from './flatbuffers-repository-frames.js';
import type { ClientFrame as WsClientFrame, DecodeResult, FrameCodec } from './ws-frames.js';
import { FLATBUFFERS_PROTOCOL } from './ws-protocol.js';
import { refuseRepeatedNames } from '../protocol/tensor-names.js';

/** Tensor payloads start at a multiple of this from the frame start (typed-array views need 8). */
export const PAYLOAD_ALIGNMENT = 16;

export const flatbuffersCodec: FrameCodec = {
  protocol: FLATBUFFERS_PROTOCOL,
  decode: decodeFlatbuffersFrame,
  encodeResponse: encodeFlatbuffersResponse,
  encodeRepositoryAnswer: encodeFlatbuffersRepositoryAnswer,
  encodeError: encodeFlatbuffersError,
  streams: true,
};

export function decodeFlatbuffersFrame(bytes: Uint8Array, volatile: boolean): DecodeResult {
  // The smallest frame is a root offset plus a table with its vtable.
  if (bytes.byteLength < 12) {
    return {
      ok: false,
      close: true,
      error: fail(
        'BAD_REQUEST',
        `a FlatBuffers frame needs at least 12 bytes, got ${bytes.byteLength}`,
      ),
    };
  }
  const bb = new ByteBuffer(bytes);
  let id: FrameId | undefined;
  try {
    const root = ClientFrame.getRootAsClientFrame(bb);
    const req = root.infer();
    const cancel = root.cancel();
    const repository = repositoryTables(root);
    if ((req === null ? 0 : 1) + (cancel === null ? 0 : 1) + repository.length !== 1) {
      throw fail(
        'BAD_REQUEST',
        'a ClientFrame must set exactly one of infer, cancel, repository_index, model_load ' +
          'and model_unload',
      );
    }
    const table = repository[0] as RepositoryTable; // when neither infer nor cancel is set
    const reading = idOf(
      req !== null ? req.id() : cancel !== null ? cancel.id() : repositoryTableId(table),
    );
    if (reading.kind !== 'valid') {
      return { ok: false, close: false, id: null, error: badIdError(reading, false) };
    }
    id = reading.id;
    if (req !== null) return { ok: true, frame: readInferRequest(req, id, bytes, volatile) };
    if (cancel !== null) return { ok: true, frame: { kind: 'cancel', id } };
    return { ok: true, frame: readRepositoryFrame(table, id, bytes, volatile) };
  } catch (e) {
    const error = toServerError(e);
    return id === undefined
      ? { ok: false, close: true, error }
      : { ok: false, close: false, id, error };
  }
}

/** FlatBuffers ids are strings (a client using integers sends their digits). */
function idOf(s: string | null): IdReading {
  return s === null ? ABSENT_ID : readStringId(s);
}

function readInferRequest(
  req: InferRequest,
  id: FrameId,
  frame: Uint8Array,
  volatile: boolean,
): WsClientFrame {
  const model = requireModel(req.model());
  const version = optionalVersion(req.version());
  const inputCount = req.inputsLength();
  checkCount(inputCount, 4, frame, 'inputs');
  checkTensorCount(inputCount, 'inputs');
  const inputs: DecodedInput[] = [];
  for (let i = 0; i < inputCount; i++) {
    const t = req.inputs(i);
    if (t === null) throw fail('BAD_REQUEST', `inputs[${i}] is missing`);
    inputs.push(readTensor(t, i, frame, volatile));
  }
  refuseRepeatedNames(
    inputs.map((t) => t.name),
    'inputs',
  );
  const outputCount = req.outputsLength();
  let outputs: DecodedOutput[] | undefined;
  if (outputCount > 0) {
    checkCount(outputCount, 4, frame, 'outputs');
    checkTensorCount(outputCount, 'outputs');
    outputs = [];
    for (let i = 0; i < outputCount; i++) {
      const o = req.outputs(i);
      const name = o?.name();
      if (o === null || typeof name !== 'string')
        throw fail('BAD_REQUEST', `outputs[${i}] has no name`);
      checkCount(o.parametersLength(), 4, frame, `output ${name} parameters`);
      const raw = readParameterTables(
        o.parametersLength(),
        (k) => o.parameters(k),
        `output ${name}`,
      );
      outputs.push({
        name,
        parameters: readParameters(raw, { where: `output ${name}`, reserveTritonPrefix: false }),
      });
    }
    refuseRepeatedNames(
      outputs.map((o) => o.name),
      'outputs',
    );
  }
  checkCount(req.parametersLength(), 4, frame, 'request parameters');
  const params = readParameterTables(req.parametersLength(), (k) => req.parameters(k), 'request');
  return {
    kind: 'infer',
    id,
    model,
    ...(version !== undefined ? { version } : {}),
    request: {
      parameters: withSequenceFields(
        readParameters(params, { where: 'request', reserveTritonPrefix: true }),
        sequenceFields(req),
        kindOf,
      ),
      inputs,
      ...(outputs !== undefined ? { outputs } : {}),
    },
  };
}

/**
 * The optional sequence fields (absent: null). The id is a ulong or a string, in two fields; the
 * ulong stays a bigint here so an id past 2^53-1 is refused with the digits sent.
 */
function sequenceFields(req: InferRequest): SequenceFields {
  const number = req.sequenceId();
  const string = req.sequenceIdString();
  if (number !== null && string !== null) {
    throw fail(
      'BAD_PARAMETER',
      "frame fields 'sequence_id' and 'sequence_id_string' are both set; set at most one",
    );
  }
  const [start, end] = [req.sequenceStart(), req.sequenceEnd()];
  return {
    ...(number !== null && { sequence_id: number }),
    ...(string !== null && { sequence_id: string }),
    ...(start !== null && { sequence_start: start }),
    ...(end !== null && { sequence_end: end }),
  };
}

function readTensor(t: Tensor, i: number, frame: Uint8Array, volatile: boolean): DecodedInput {
  const name = t.name();
  if (typeof name !== 'string') throw fail('BAD_REQUEST', `inputs[${i}] has no name`);
  const datatype = t.datatype();
  if (typeof datatype !== 'string') throw fail('BAD_REQUEST', `input '${name}' has no datatype`);
  const rank = t.shapeLength();
  checkCount(rank, 8, frame, `input '${name}' shape`);
  const shape: number[] = [];
  for (let d = 0; d < rank; d++) {
    const v = t.shape(d) ?? 0n;
    // Out-of-range dims become -1 so validation refuses them with its usual message.
    shape.push(v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : -1);
  }
  checkByteVector(t, TENSOR_DATA_FIELD, `input '${name}' data`, frame);
  const data = t.dataArray() ?? new Uint8Array(0);
  checkCount(t.parametersLength(), 4, frame, `input '${name}' parameters`);
  const params = readParameterTables(t.parametersLength(), (k) => t.parameters(k), `input ${name}`);
  const parameters = readParameters(params, { where: `input ${name}`, reserveTritonPrefix: false });
  // Named in a shared-memory region: the data plane reads it there.
  const region = inputRegion(name, parameters, data.byteLength > 0);
  return {
    name,
    datatype,
    shape,
    parameters,
    data: region ?? { kind: 'raw', bytes: keepPayload(data, volatile) },
  };
}

/** Tensor.data is field 3: vtable slot 4 + 2 * 3, the offset the generated dataArray() reads. */
const TENSOR_DATA_FIELD = 10;

export function encodeFlatbuffersResponse(id: FrameId, r: InferenceResponse): Uint8Array {
  let payload = 0;
  for (const o of r.outputs) payload += o.data.byteLength + PAYLOAD_ALIGNMENT;
  // Sized up front so the builder does not regrow (and recopy) for large outputs.
  const b = new Builder(1024 + payload);
  const tensors = r.outputs.map((o) => {
    const name = b.createString(o.name);
    const datatype = b.createString(o.datatype);
    const shape = Tensor.createShapeVector(
      b,
      o.shape.map((d) => BigInt(d)),
    );
    if (o.inSharedMemory === true) {
      // Written into a region: its shared_memory_* parameters, and no data.
      const params = Tensor.createParametersVector(b, writeParameterTables(b, o.parameters));
      return Tensor.createTensor(b, name, datatype, shape, 0, params);
    }
    const data = alignedByteVector(b, o.data);
    return Tensor.createTensor(b, name, datatype, shape, data, 0);
  });
  const outputs = ServerFrame.createOutputsVector(b, tensors);
  const idOffset = b.createString(String(id.key));
  const modelName = b.createString(r.model_name);
  const modelVersion = b.createString(r.model_version);
  ServerFrame.startServerFrame(b);
  ServerFrame.addId(b, idOffset);
  ServerFrame.addModelName(b, modelName);
  ServerFrame.addModelVersion(b, modelVersion);
  ServerFrame.addOutputs(b, outputs);
  // A decoupled model's responses carry `final` (docs/websocket-protocol.md, "Decoupled models").
  const final = r.parameters?.triton_final_response;
  if (typeof final === 'boolean') addFinal(b, final);
  b.finish(ServerFrame.endServerFrame(b));
  return b.asUint8Array();
}

/**
 * Writes `final` even when false: flatc 2.0.8's TypeScript adder drops a value equal to the
 * scalar's default (0), which for an optional field would read back as absent.
 */
function addFinal(b: Builder, final: boolean): void {
  b.forceDefaults(true);
  ServerFrame.addFinal(b, final);
  b.forceDefaults(false);
}

/** An error frame; a refused frame without a usable id is answered with no `id` field. */
export function encodeFlatbuffersError(
  id: FrameId | null,
  error: WireError,
  final?: boolean,
): Uint8Array {
  const b = new Builder(256);
  const code = b.createString(error.code);
  const message = b.createString(error.message);
  // 0 (the default, so not written) when the error names no delay.
  const err = FbError.createError(b, code, message, error.retryAfterMs ?? 0);
  const idOffset = id === null ? undefined : b.createString(String(id.key));
  ServerFrame.startServerFrame(b);
  if (idOffset !== undefined) ServerFrame.addId(b, idOffset);
  ServerFrame.addError(b, err);
  if (final !== undefined) addFinal(b, final);
  b.finish(ServerFrame.endServerFrame(b));
  return b.asUint8Array();
}

/**
 * A byte vector whose first byte sits at a multiple of PAYLOAD_ALIGNMENT from the frame start:
 * prep() pads so that the bytes written next end on the boundary (FlatBuffers builds back to
 * front), and raises the builder's minimum alignment so finish() aligns the frame as a whole.
 * createByteVector then copies the bytes in one set(), no per-element work.
 */
export function alignedByteVector(b: Builder, bytes: Uint8Array): Offset {
  b.prep(PAYLOAD_ALIGNMENT, bytes.byteLength);
  return b.createByteVector(bytes);
}
