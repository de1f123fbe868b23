// The msgpack encoding of WebSocket frames (subprotocol infernode.msgpack.v1): request frames are
// pre-scanned (msgpack-scan.ts), decoded with msgpackr into plain objects, and every field's type is
// checked before use; responses are written by msgpack-writer.ts with tensor bytes as `bin`.
//
// Why `bin` plus datatype and shape rather than msgpackr's typed-array extensions: measured with
// msgpackr 2.1.3, its default mode returns a typed array as an unaligned Buffer view and throws on
// BigInt64Array, and `moreTypes` keeps the type but copies. `bin` is one memcpy each way and is
// readable from any language's msgpack library.

import { Unpackr } from 'msgpackr';
import { fail, toServerError } from '../errors.js';
import { encodeBytesTensor } from '../tensor/bytes-tensor.js';
import type { DecodedInput, DecodedOutput, DecodedRequest } from '../protocol/inference-request.js';
import { isJsonObject, own, readParameters } from '../protocol/parameters.js';
import { withSequenceFields, type SequenceFields } from '../protocol/sequence-parameters.js';
import {
  checkTensorCount,
  inputRegion,
  keepPayload,
  kindOf,
  optionalVersion,
  requireModel,
  requireString,
} from './frame-fields.js';
import { badIdError, type FrameId } from './frame-id.js';
import { scanMsgpack } from './msgpack-scan.js';
import {
  writeErrorFrame,
  writeRepositoryFrame,
  writeResponseFrame,
  writeSharedMemoryFrame,
} from './msgpack-writer.js';
import { repositoryFrame } from './msgpack-repository-frames.js';
import { isSharedMemoryFrameType, sharedMemoryFrame } from './msgpack-shm-frames.js';
import type { ClientFrame, DecodeResult, FrameCodec } from './ws-frames.js';
import { MSGPACK_PROTOCOL } from './ws-protocol.js';
import { refuseRepeatedNames } from '../protocol/tensor-names.js';

// useRecords: false — msgpackr's record extension would otherwise be accepted, and no other
// msgpack library writes it. mapsAsObjects: maps become plain objects; msgpackr renames a
// `__proto__` key, and the envelope is only ever read through own-property checks anyway.
// int64AsType 'number': some libraries write every integer as a uint 64 / int 64, which msgpackr
// would otherwise return as a bigint that no field check accepts (a shape of [1n, 2n], version 3n).
// A value past 2^53 rounds, and is then refused as not a safe integer wherever integers are read.
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

export const msgpackCodec: FrameCodec = {
  protocol: MSGPACK_PROTOCOL,
  decode: decodeMsgpackFrame,
  encodeResponse: writeResponseFrame,
  encodeRepositoryAnswer: writeRepositoryFrame,
  encodeSharedMemoryAnswer: writeSharedMemoryFrame,
  encodeError: writeErrorFrame,
  streams: true,
};

export function decodeMsgpackFrame(bytes: Uint8Array, volatile: boolean): DecodeResult {
  // The scan is the one reader of the id: it sees the id's msgpack format, which the decoded
  // document no longer shows (a float 5.0 decodes to the number 5).
  const scan = scanMsgpack(bytes);
  if (!scan.ok) {
    const error = fail('BAD_REQUEST', `undecodable frame: ${scan.reason}`);
    return scan.id.kind === 'valid'
      ? { ok: false, close: false, id: scan.id.id, error }
      : { ok: false, close: true, error };
  }
  if (scan.id.kind !== 'valid') {
    return { ok: false, close: false, id: null, error: badIdError(scan.id, true) };
  }
  const id = scan.id.id;
  try {
    // From the scan, before msgpackr makes an object of every entry of an oversized list.
    checkTensorCount(scan.lists.inputs, 'inputs');
    checkTensorCount(scan.lists.outputs, 'outputs');
  } catch (e) {
    return { ok: false, close: false, id, error: toServerError(e) };
  }
  let doc: unknown;
  try {
    doc = unpackr.unpack(bytes);
  } catch (e) {
    // The scan accepted it, so this is a msgpackr edge the scan does not model; the message is
    // msgpackr's own and carries no server state.
    const why = e instanceof Error ? e.message.slice(0, 200) : 'unknown';
    return {
      ok: false,
      close: false,
      id,
      error: fail('BAD_REQUEST', `undecodable frame: ${why}`),
    };
  }
  try {
    return { ok: true, frame: frameFromDocument(doc, id, volatile) };
  } catch (e) {
    return { ok: false, close: false, id, error: toServerError(e) };
  }
}

function frameFromDocument(doc: unknown, id: FrameId, volatile: boolean): ClientFrame {
  if (!isMap(doc)) throw fail('BAD_REQUEST', `a frame must be a map, got ${kindOf(doc)}`);
  const type = own(doc, 'type');
  if (isSharedMemoryFrameType(type)) return sharedMemoryFrame(doc, type, id);
  if (type !== undefined) return repositoryFrame(doc, type, id, volatile);
  const cancel = own(doc, 'cancel');
  if (cancel !== undefined) {
    if (cancel !== true) {
      throw fail('BAD_REQUEST', `frame 'cancel' must be true when present, got ${kindOf(cancel)}`);
    }
    return { kind: 'cancel', id };
  }
  const model = requireModel(own(doc, 'model'));
  const version = optionalVersion(own(doc, 'version'));
  const parameters = readParameters(own(doc, 'parameters'), {
    where: 'request',
    reserveTritonPrefix: true,
  });
  const request: DecodedRequest = {
    parameters: withSequenceFields(parameters, sequenceFields(doc), kindOf),
    inputs: readInputs(own(doc, 'inputs'), volatile),
    ...optionalOutputs(own(doc, 'outputs')),
  };
  // W3C trace context: a string, or it is ignored (as a malformed traceparent header is).
  const traceparent = own(doc, 'traceparent');
  return {
    kind: 'infer',
    id,
    model,
    ...(version !== undefined ? { version } : {}),
    request,
    ...(typeof traceparent === 'string' && { traceparent }),
  };
}

/** The top-level sequence fields; nil is taken as absent, as for `version` and `outputs`. */
function sequenceFields(doc: Record<string, unknown>): SequenceFields {
  return {
    sequence_id: nilAsAbsent(own(doc, 'sequence_id')),
    sequence_start: nilAsAbsent(own(doc, 'sequence_start')),
    sequence_end: nilAsAbsent(own(doc, 'sequence_end')),
  };
}

const nilAsAbsent = (v: unknown): unknown => (v === null ? undefined : v);

function isMap(v: unknown): v is Record<string, unknown> {
  return isJsonObject(v) && !(v instanceof Uint8Array);
}

function readInputs(v: unknown, volatile: boolean): DecodedInput[] {
  if (!Array.isArray(v))
    throw fail('BAD_REQUEST', `frame 'inputs' must be an array, got ${kindOf(v)}`);
  checkTensorCount(v.length, 'inputs');
  const inputs = v.map((entry: unknown, i): DecodedInput => {
    if (!isMap(entry)) {
      throw fail('BAD_REQUEST', `inputs[${i}] must be a map, got ${kindOf(entry)}`);
    }
    const name = requireString(own(entry, 'name'), `inputs[${i}].name`);
    const datatype = requireString(own(entry, 'datatype'), `input '${name}' datatype`);
    const shape = own(entry, 'shape');
    if (!Array.isArray(shape)) {
      throw fail('BAD_SHAPE', `input '${name}' shape must be an array, got ${kindOf(shape)}`);
    }
    const parameters = readParameters(own(entry, 'parameters'), {
      where: `input ${name}`,
      reserveTritonPrefix: false,
    });
    const data = own(entry, 'data');
    // Named in a shared-memory region: the data plane reads it there.
    const region = inputRegion(name, parameters, data !== undefined && data !== null);
    return {
      name,
      datatype,
      shape: shape as unknown[],
      parameters,
      data: region ?? { kind: 'raw', bytes: readData(data, name, datatype, volatile) },
    };
  });
  refuseRepeatedNames(
    inputs.map((i) => i.name),
    'inputs',
  );
  return inputs;
}

/**
 * `bin` for every datatype (BYTES: the 4-byte length-prefixed layout). BYTES may instead be an
 * array of elements, each a string (UTF-8) or a bin; they are laid out once into a new buffer.
 */
function readData(v: unknown, name: string, datatype: string, volatile: boolean): Uint8Array {
  if (v instanceof Uint8Array) return keepPayload(v, volatile);
  if (datatype === 'BYTES' && Array.isArray(v)) {
    const elements = v.map((e: unknown, i) => {
      if (typeof e === 'string' || e instanceof Uint8Array) return e;
      throw fail(
        'BAD_TENSOR_DATA',
        `input '${name}' BYTES element ${i} must be a string or a bin, got ${kindOf(e)}`,
      );
    });
    return encodeBytesTensor(elements); // a fresh buffer: never a view of the frame
  }
  throw fail(
    'BAD_TENSOR_DATA',
    `input '${name}' data must be a bin of raw little-endian bytes` +
      `${datatype === 'BYTES' ? ' or an array of strings' : ''}, got ${kindOf(v)}`,
  );
}

function optionalOutputs(v: unknown): { outputs?: DecodedOutput[] } {
  if (v === undefined || v === null) return {};
  if (!Array.isArray(v))
    throw fail('BAD_REQUEST', `frame 'outputs' must be an array, got ${kindOf(v)}`);
  checkTensorCount(v.length, 'outputs');
  const outputs = v.map((entry: unknown, i): DecodedOutput => {
    if (typeof entry === 'string')
      return { name: entry, parameters: readParameters(undefined, noPrefix('')) };
    if (!isMap(entry)) {
      throw fail('BAD_REQUEST', `outputs[${i}] must be a map or a name, got ${kindOf(entry)}`);
    }
    const name = requireString(own(entry, 'name'), `outputs[${i}].name`);
    return { name, parameters: readParameters(own(entry, 'parameters'), noPrefix(name)) };
  });
  refuseRepeatedNames(
    outputs.map((o) => o.name),
    'outputs',
  );
  return { outputs };
}

const noPrefix = (name: string) => ({ where: `output ${name}`, reserveTritonPrefix: false });
