// The client's side of the WebSocket frames, one codec per subprotocol: request, cancel and
// repository frames out, response frames in. The server's side lives in src/websocket/;
// docs/websocket-protocol.md is the contract both follow.

import { Builder, ByteBuffer } from 'flatbuffers';
import { Packr, Unpackr } from 'msgpackr';
import { isDatatype } from '../tensor/datatypes.js';
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
  Tensor as FbTensor,
} from '../../schemas/generated/infernode-ws_generated.js';
import { alignedByteVector } from '../websocket/flatbuffers-frames.js';
import { writeParameterTables } from '../websocket/flatbuffers-parameters.js';
import { FLATBUFFERS_PROTOCOL, MSGPACK_PROTOCOL } from '../websocket/ws-protocol.js';
import { tensorBytes, tensorFromBytes, type Tensor } from './client-tensor.js';
import {
  InferenceClientError,
  isRegionInput,
  regionInputHeader,
  regionOutputOf,
  requestedOutputs,
  sequenceFields,
  sharedMemoryParameters,
  type InferInput,
  type InferOptions,
  type InferResult,
  type RegionOutput,
  type RegionStatusRow,
  type RepositoryIndexRow,
  type SequenceFields,
  type SharedMemoryCall,
} from './client-types.js';

/** A repository frame to send; `files` are keyed by the path after `file:`. */
export type RepositoryRequest =
  | { readonly type: 'repository_index'; readonly ready: boolean }
  | {
      readonly type: 'model_load';
      readonly model: string;
      readonly config?: string;
      readonly files: Readonly<Record<string, Uint8Array>>;
    }
  | { readonly type: 'model_unload'; readonly model: string; readonly unloadDependents: boolean };

export type ServerReply =
  | { readonly id: string | number; readonly result: InferResult }
  | {
      readonly id: string | number;
      readonly repository: {
        readonly type: string;
        readonly models?: RepositoryIndexRow[];
        /** shm_status's rows. */
        readonly regions?: RegionStatusRow[];
      };
    }
  | { readonly id: string | number; readonly error: ReplyError };

/** An error frame's error; `retryAfterMs` when the server said when a retry may succeed. */
export interface ReplyError {
  readonly code: string;
  readonly message: string;
  readonly retryAfterMs?: number;
}

export interface ClientCodec {
  readonly protocol: string;
  encodeRequest(
    id: number,
    model: string,
    inputs: readonly InferInput[],
    options: InferOptions,
  ): Uint8Array;
  encodeCancel(id: number): Uint8Array;
  encodeRepository(id: number, request: RepositoryRequest): Uint8Array;
  /** A shared-memory frame; absent: the encoding has none (FlatBuffers, for now). */
  readonly encodeSharedMemory?: (id: number, call: SharedMemoryCall) => Uint8Array;
  /** Throws on a frame that is not a well-formed response. */
  decodeReply(bytes: Uint8Array): ServerReply;
}

const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

interface MsgpackReply {
  id: string | number;
  type?: string;
  models?: RepositoryIndexRow[];
  regions?: { name: string; key: string; offset: number; byte_size: number }[];
  model_name?: string;
  model_version?: string;
  outputs?: {
    name: string;
    datatype: string;
    shape: number[];
    data?: Uint8Array;
    parameters?: Record<string, unknown>;
  }[];
  error?: { code: string; message: string; retry_after_ms?: number };
}

export const msgpackClientCodec: ClientCodec = {
  protocol: MSGPACK_PROTOCOL,
  encodeRequest: (id, model, inputs, options) =>
    packr.pack({
      id,
      model,
      ...(options.version !== undefined ? { version: String(options.version) } : {}),
      inputs: inputs.map((t) =>
        isRegionInput(t)
          ? regionInputHeader(t)
          : { name: t.name, datatype: t.datatype, shape: t.shape, data: tensorBytes(t) },
      ),
      ...msgpackOutputs(options),
      ...(options.parameters !== undefined ? { parameters: options.parameters } : {}),
      // First-class frame fields, not parameters: the server refuses a key given both ways.
      ...sequenceFields(options),
    }),
  encodeCancel: (id) => packr.pack({ id, cancel: true }),
  encodeRepository: (id, r) => {
    switch (r.type) {
      case 'repository_index':
        return packr.pack({ id, type: r.type, ready: r.ready });
      case 'model_load': {
        const parameters: Record<string, string | Uint8Array> = {};
        if (r.config !== undefined) parameters['config'] = r.config;
        for (const [path, bytes] of Object.entries(r.files)) parameters[`file:${path}`] = bytes;
        return packr.pack({ id, type: r.type, model: r.model, parameters });
      }
      case 'model_unload':
        return packr.pack({
          id,
          type: r.type,
          model: r.model,
          parameters: { unload_dependents: r.unloadDependents },
        });
    }
  },
  encodeSharedMemory: (id, call) => {
    switch (call.op) {
      case 'register':
        return packr.pack({
          id,
          type: 'shm_register',
          name: call.name,
          key: call.key,
          offset: call.offset,
          byte_size: call.byteSize,
        });
      case 'unregister':
      case 'status':
        return packr.pack({
          id,
          type: `shm_${call.op}`,
          ...(call.name !== undefined && { name: call.name }),
        });
    }
  },
  decodeReply: (bytes) => {
    const doc = unpackr.unpack(bytes) as MsgpackReply;
    if (doc.error !== undefined) {
      const { code, message, retry_after_ms: retryAfterMs } = doc.error;
      return {
        id: doc.id,
        error: retryAfterMs === undefined ? { code, message } : { code, message, retryAfterMs },
      };
    }
    if (doc.type !== undefined) {
      return {
        id: doc.id,
        repository: {
          type: doc.type,
          ...(doc.models !== undefined && { models: doc.models }),
          ...(doc.regions !== undefined && {
            regions: doc.regions.map((r) => ({
              name: r.name,
              key: r.key,
              offset: r.offset,
              byteSize: r.byte_size,
            })),
          }),
        },
      };
    }
    const outputs: Tensor[] = [];
    const regionOutputs: RegionOutput[] = [];
    for (const o of doc.outputs ?? []) {
      if (!isDatatype(o.datatype)) throw new Error(`unknown datatype in output ${o.name}`);
      // Written into a region: its parameters say where, and it has no data.
      const inRegion = regionOutputOf(o.name, o.datatype, o.shape, o.parameters);
      if (inRegion !== undefined) regionOutputs.push(inRegion);
      else outputs.push(tensorFromBytes(o.name, o.datatype, o.shape, o.data ?? new Uint8Array(0)));
    }
    return {
      id: doc.id,
      result: {
        modelName: doc.model_name ?? '',
        modelVersion: doc.model_version ?? '',
        outputs,
        regionOutputs,
      },
    };
  },
};

/** The requested outputs: names, or `{name, parameters}` for those written into a region. */
function msgpackOutputs(options: InferOptions) {
  const names = requestedOutputs(options);
  if (names === undefined) return {};
  return {
    outputs: names.map((name) => {
      const ref = options.outputRegions?.[name];
      return ref === undefined ? { name } : { name, parameters: sharedMemoryParameters(ref) };
    }),
  };
}

/**
 * The optional scalar sequence fields of an InferRequest being built. flatc 2.0.8's TypeScript adds
 * an optional scalar with a default of 0, so the builder would drop a 0 id or a `false` and the
 * server would see the field absent; forcing defaults for just these adds writes them.
 */
export function addSequenceScalars(b: Builder, sequence: SequenceFields): void {
  b.forceDefaults(true);
  if (typeof sequence.sequence_id === 'number') {
    InferRequest.addSequenceId(b, BigInt(sequence.sequence_id));
  }
  if (sequence.sequence_start !== undefined) {
    InferRequest.addSequenceStart(b, sequence.sequence_start);
  }
  if (sequence.sequence_end !== undefined) InferRequest.addSequenceEnd(b, sequence.sequence_end);
  b.forceDefaults(false);
}

export const flatbuffersClientCodec: ClientCodec = {
  protocol: FLATBUFFERS_PROTOCOL,
  encodeRequest: (id, model, all, options) => {
    if (options.outputRegions !== undefined || all.some(isRegionInput)) {
      throw new InferenceClientError(
        'OPTIONS',
        `shared-memory tensors are not part of ${FLATBUFFERS_PROTOCOL}: use the 'ws' protocol`,
      );
    }
    const inputs = all as readonly Tensor[];
    const payloads = inputs.map(tensorBytes);
    let size = 1024;
    for (const p of payloads) size += p.byteLength + 16;
    const b = new Builder(size);
    const tensors = inputs.map((t, i) => {
      const name = b.createString(t.name);
      const datatype = b.createString(t.datatype);
      const shape = FbTensor.createShapeVector(
        b,
        t.shape.map((d) => BigInt(d)),
      );
      const data = alignedByteVector(b, payloads[i] as Uint8Array);
      return FbTensor.createTensor(b, name, datatype, shape, data, 0);
    });
    const inputsVector = InferRequest.createInputsVector(b, tensors);
    const outputsVector =
      options.outputs === undefined
        ? 0
        : InferRequest.createOutputsVector(
            b,
            options.outputs.map((n) =>
              RequestedOutput.createRequestedOutput(b, b.createString(n), 0),
            ),
          );
    const params = InferRequest.createParametersVector(
      b,
      writeParameterTables(b, options.parameters),
    );
    const idOffset = b.createString(String(id));
    const modelOffset = b.createString(model);
    const version = options.version === undefined ? 0 : b.createString(String(options.version));
    const sequence = sequenceFields(options);
    const sequenceIdString =
      typeof sequence.sequence_id === 'string' ? b.createString(sequence.sequence_id) : 0;
    InferRequest.startInferRequest(b);
    InferRequest.addId(b, idOffset);
    InferRequest.addModel(b, modelOffset);
    if (version !== 0) InferRequest.addVersion(b, version);
    InferRequest.addInputs(b, inputsVector);
    if (outputsVector !== 0) InferRequest.addOutputs(b, outputsVector);
    InferRequest.addParameters(b, params);
    if (sequenceIdString !== 0) InferRequest.addSequenceIdString(b, sequenceIdString);
    addSequenceScalars(b, sequence);
    const request = InferRequest.endInferRequest(b);
    ClientFrame.startClientFrame(b);
    ClientFrame.addInfer(b, request);
    b.finish(ClientFrame.endClientFrame(b));
    return b.asUint8Array();
  },
  encodeCancel: (id) => {
    const b = new Builder(64);
    const cancel = Cancel.createCancel(b, b.createString(String(id)));
    ClientFrame.startClientFrame(b);
    ClientFrame.addCancel(b, cancel);
    b.finish(ClientFrame.endClientFrame(b));
    return b.asUint8Array();
  },
  encodeRepository: (id, r) => {
    const files = r.type === 'model_load' ? Object.entries(r.files) : [];
    let size = 256;
    for (const [path, bytes] of files) size += path.length * 3 + bytes.byteLength + 32;
    const b = new Builder(size);
    const idOffset = b.createString(String(id));
    let table: number;
    switch (r.type) {
      case 'repository_index':
        table = RepositoryIndex.createRepositoryIndex(b, idOffset, r.ready);
        break;
      case 'model_load': {
        const tables = files.map(([path, bytes]) =>
          ModelFile.createModelFile(b, b.createString(path), b.createByteVector(bytes)),
        );
        table = ModelLoad.createModelLoad(
          b,
          idOffset,
          b.createString(r.model),
          r.config === undefined ? 0 : b.createString(r.config),
          tables.length === 0 ? 0 : ModelLoad.createFilesVector(b, tables),
        );
        break;
      }
      case 'model_unload':
        table = ModelUnload.createModelUnload(
          b,
          idOffset,
          b.createString(r.model),
          r.unloadDependents,
        );
        break;
    }
    ClientFrame.startClientFrame(b);
    if (r.type === 'repository_index') ClientFrame.addRepositoryIndex(b, table);
    else if (r.type === 'model_load') ClientFrame.addModelLoad(b, table);
    else ClientFrame.addModelUnload(b, table);
    b.finish(ClientFrame.endClientFrame(b));
    return b.asUint8Array();
  },
  decodeReply: (bytes) => {
    const frame = ServerFrame.getRootAsServerFrame(new ByteBuffer(bytes));
    // The client's ids are integers; the FlatBuffers frame carries them as their digits.
    const id = Number(frame.id());
    const error = frame.error();
    if (error !== null) {
      const code = error.code() ?? '';
      const message = error.message() ?? '';
      const retryAfterMs = error.retryAfterMs();
      return {
        id,
        error: retryAfterMs === 0 ? { code, message } : { code, message, retryAfterMs },
      };
    }
    const type = frame.type();
    if (type !== null) {
      if (type !== 'repository_index') return { id, repository: { type } };
      const models: RepositoryIndexRow[] = [];
      for (let i = 0; i < frame.modelsLength(); i++) {
        const m = frame.models(i);
        const [version, state, reason] = [m?.version(), m?.state(), m?.reason()];
        models.push({
          name: m?.name() ?? '',
          ...(typeof version === 'string' && { version }),
          ...(typeof state === 'string' && { state }),
          ...(typeof reason === 'string' && { reason }),
        });
      }
      return { id, repository: { type, models } };
    }
    const outputs: Tensor[] = [];
    for (let i = 0; i < frame.outputsLength(); i++) {
      const t = frame.outputs(i);
      const datatype = t?.datatype();
      if (t === null || !isDatatype(datatype)) throw new Error(`output ${i} has no known datatype`);
      const shape: number[] = [];
      for (let d = 0; d < t.shapeLength(); d++) shape.push(Number(t.shape(d)));
      outputs.push(
        tensorFromBytes(t.name() ?? '', datatype, shape, t.dataArray() ?? new Uint8Array(0)),
      );
    }
    return {
      id,
      result: {
        modelName: frame.modelName() ?? '',
        modelVersion: frame.modelVersion() ?? '',
        outputs,
        regionOutputs: [],
      },
    };
  },
};
