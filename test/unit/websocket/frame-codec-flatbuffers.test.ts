// Runs the frame-codec conformance suite against the FlatBuffers encoding
// (infernode.flatbuffers.v1), building ClientFrame tables from schemas/infernode-ws.fbs field by
// field, so every optional part (version, parameters at each level, outputs) can be set or left out.

import { Builder, ByteBuffer, type Offset } from 'flatbuffers';
import {
  Cancel,
  ClientFrame,
  InferRequest,
  ModelFile,
  ModelLoad,
  ModelUnload,
  RepositoryIndex,
  RequestedOutput,
  ServerFrame,
  Tensor,
} from '../../../schemas/generated/infernode-ws_generated.js';
import { alignedByteVector, flatbuffersCodec } from '../../../src/websocket/flatbuffers-frames.js';
import { writeParameterTables } from '../../../src/websocket/flatbuffers-parameters.js';
import type { IndexRow, InferSpec, ParamsSpec, RepositorySpec, Reply } from './frame-codec-case.js';
import { runFrameCodecConformance } from './frame-codec.conformance.js';

/** A parameters vector, or 0 (field absent) when the spec has none. */
function parameters(
  b: Builder,
  p: ParamsSpec | undefined,
  vector: (b: Builder, tables: Offset[]) => Offset,
): Offset {
  return p === undefined ? 0 : vector(b, writeParameterTables(b, p));
}

function encodeInfer(s: InferSpec): Uint8Array {
  const b = new Builder(1024);
  const tensors = s.inputs.map((t) => {
    const name = b.createString(t.name);
    const datatype = b.createString(t.datatype);
    const shape = Tensor.createShapeVector(
      b,
      t.shape.map((d) => BigInt(d)),
    );
    const data = alignedByteVector(b, t.data);
    const params = parameters(b, t.parameters, Tensor.createParametersVector);
    return Tensor.createTensor(b, name, datatype, shape, data, params);
  });
  const inputs = InferRequest.createInputsVector(b, tensors);
  const outputs =
    s.outputs === undefined
      ? 0
      : InferRequest.createOutputsVector(
          b,
          s.outputs.map((o) => {
            const name = b.createString(o.name);
            const params = parameters(b, o.parameters, RequestedOutput.createParametersVector);
            return RequestedOutput.createRequestedOutput(b, name, params);
          }),
        );
  const params = parameters(b, s.parameters, InferRequest.createParametersVector);
  const id = b.createString(String(s.id));
  const model = b.createString(s.model);
  const version = s.version === undefined ? 0 : b.createString(String(s.version));
  const seq = s.sequence ?? {};
  const seqString = typeof seq.id === 'string' ? b.createString(seq.id) : 0;
  InferRequest.startInferRequest(b);
  InferRequest.addId(b, id);
  InferRequest.addModel(b, model);
  if (version !== 0) InferRequest.addVersion(b, version);
  InferRequest.addInputs(b, inputs);
  if (outputs !== 0) InferRequest.addOutputs(b, outputs);
  if (params !== 0) InferRequest.addParameters(b, params);
  if (seqString !== 0) InferRequest.addSequenceIdString(b, seqString);
  // Optional scalars: written even when 0 or false (flatc 2.0.8's adders would skip those).
  b.forceDefaults(true);
  if (typeof seq.id === 'number' || typeof seq.id === 'bigint') {
    InferRequest.addSequenceId(b, BigInt(seq.id));
  }
  if (seq.start !== undefined) InferRequest.addSequenceStart(b, seq.start);
  if (seq.end !== undefined) InferRequest.addSequenceEnd(b, seq.end);
  b.forceDefaults(false);
  const request = InferRequest.endInferRequest(b);
  ClientFrame.startClientFrame(b);
  ClientFrame.addInfer(b, request);
  b.finish(ClientFrame.endClientFrame(b));
  return b.asUint8Array();
}

/** A repository frame: its table in the ClientFrame field its type names. */
function encodeRepository(s: RepositorySpec): Uint8Array {
  const b = new Builder(1024);
  const id = b.createString(String(s.id));
  let table: Offset;
  switch (s.type) {
    case 'repository_index':
      table = RepositoryIndex.createRepositoryIndex(b, id, s.ready ?? false);
      break;
    case 'model_load': {
      const files = (s.files ?? []).map(([path, bytes]) =>
        ModelFile.createModelFile(b, b.createString(path), alignedByteVector(b, bytes)),
      );
      table = ModelLoad.createModelLoad(
        b,
        id,
        b.createString(s.model),
        s.config === undefined ? 0 : b.createString(s.config),
        s.files === undefined ? 0 : ModelLoad.createFilesVector(b, files),
      );
      break;
    }
    case 'model_unload':
      table = ModelUnload.createModelUnload(
        b,
        id,
        b.createString(s.model),
        s.unloadDependents ?? false,
      );
      break;
  }
  ClientFrame.startClientFrame(b);
  if (s.type === 'repository_index') ClientFrame.addRepositoryIndex(b, table);
  else if (s.type === 'model_load') ClientFrame.addModelLoad(b, table);
  else ClientFrame.addModelUnload(b, table);
  b.finish(ClientFrame.endClientFrame(b));
  return b.asUint8Array();
}

function readReply(bytes: Uint8Array): Reply {
  const frame = ServerFrame.getRootAsServerFrame(new ByteBuffer(bytes));
  const id = frame.id() ?? '';
  const error = frame.error();
  if (error !== null) {
    const retryMs = error.retryAfterMs();
    return {
      id,
      error: {
        code: error.code() ?? '',
        message: error.message() ?? '',
        ...(retryMs !== 0 && { retry_after_ms: retryMs }),
      },
    };
  }
  const type = frame.type();
  if (type !== null) {
    if (type !== 'repository_index') return { id, type };
    const models: IndexRow[] = [];
    for (let i = 0; i < frame.modelsLength(); i++) {
      const m = frame.models(i);
      if (m === null) throw new Error(`models[${i}] is missing`);
      const [version, state, reason] = [m.version(), m.state(), m.reason()];
      models.push({
        name: m.name() ?? '',
        ...(version !== null && { version }),
        ...(state !== null && { state }),
        ...(reason !== null && { reason }),
      });
    }
    return { id, type, models };
  }
  const outputs = [];
  for (let i = 0; i < frame.outputsLength(); i++) {
    const t = frame.outputs(i);
    if (t === null) throw new Error(`output ${i} is missing`);
    const shape: number[] = [];
    for (let d = 0; d < t.shapeLength(); d++) shape.push(Number(t.shape(d)));
    outputs.push({
      name: t.name() ?? '',
      datatype: t.datatype() ?? '',
      shape,
      data: t.dataArray() ?? new Uint8Array(0),
    });
  }
  return {
    id,
    model_name: frame.modelName() ?? '',
    model_version: frame.modelVersion() ?? '',
    outputs,
  };
}

runFrameCodecConformance({
  name: 'FlatBuffers',
  codec: flatbuffersCodec,
  encodeInfer,
  encodeCancel: (id) => {
    const b = new Builder(64);
    const cancel = Cancel.createCancel(b, b.createString(String(id)));
    ClientFrame.startClientFrame(b);
    ClientFrame.addCancel(b, cancel);
    b.finish(ClientFrame.endClientFrame(b));
    return b.asUint8Array();
  },
  encodeRepository,
  readReply,
  wireId: (id) => String(id),
  skip: {
    'refuse.integer-id':
      'FlatBuffers ids are strings (InferRequest.id: string): -1, 1.5 and 9007199254740992 ' +
      'arrive as their text, which is a valid string id',
    'hostile.truncated-refused':
      'the FlatBuffers runtime reads past the end of a buffer as zeros, so a cut frame can still ' +
      'parse; only vectors are checked against the frame bounds',
  },
});
