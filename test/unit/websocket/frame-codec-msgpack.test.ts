// Runs the frame-codec conformance suite against the msgpack encoding (infernode.msgpack.v1),
// writing request frames as a client in any language would: plain maps, tensor data as `bin`.

import { Packr, Unpackr } from 'msgpackr';
import { msgpackCodec } from '../../../src/websocket/msgpack-frames.js';
import type { IndexRow, RepositorySpec, Reply, TestId } from './frame-codec-case.js';
import { runFrameCodecConformance } from './frame-codec.conformance.js';

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

const bin = (bytes: Uint8Array): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

interface ReplyDocument {
  id: TestId | bigint;
  type?: string;
  models?: IndexRow[];
  error?: { code: string; message: string };
  model_name: string;
  model_version: string;
  outputs: { name: string; datatype: string; shape: number[]; data: Uint8Array }[];
}

runFrameCodecConformance({
  name: 'msgpack',
  codec: msgpackCodec,
  encodeInfer: (s) =>
    packr.pack({
      id: s.id,
      model: s.model,
      ...(s.version !== undefined && { version: s.version }),
      inputs: s.inputs.map((t) => ({
        name: t.name,
        datatype: t.datatype,
        shape: t.shape,
        data: bin(t.data),
        ...(t.parameters !== undefined && { parameters: t.parameters }),
      })),
      ...(s.outputs !== undefined && {
        outputs: s.outputs.map((o) => ({
          name: o.name,
          ...(o.parameters !== undefined && { parameters: o.parameters }),
        })),
      }),
      ...(s.parameters !== undefined && { parameters: s.parameters }),
      ...(s.sequence?.id !== undefined && { sequence_id: s.sequence.id }),
      ...(s.sequence?.start !== undefined && { sequence_start: s.sequence.start }),
      ...(s.sequence?.end !== undefined && { sequence_end: s.sequence.end }),
    }),
  encodeCancel: (id) => packr.pack({ id, cancel: true }),
  encodeRepository: (s: RepositorySpec) => {
    switch (s.type) {
      case 'repository_index':
        return packr.pack({
          id: s.id,
          type: s.type,
          ...(s.ready !== undefined && { ready: s.ready }),
        });
      case 'model_load': {
        const parameters: Record<string, unknown> = {};
        if (s.config !== undefined) parameters['config'] = s.config;
        for (const [path, bytes] of s.files ?? []) parameters[`file:${path}`] = bin(bytes);
        return packr.pack({ id: s.id, type: s.type, model: s.model, parameters });
      }
      case 'model_unload':
        return packr.pack({
          id: s.id,
          type: s.type,
          model: s.model,
          ...(s.unloadDependents !== undefined && {
            parameters: { unload_dependents: s.unloadDependents },
          }),
        });
    }
  },
  readReply: (bytes): Reply => {
    const doc = unpackr.unpack(bytes) as ReplyDocument;
    // An integer id of 2^32 and up arrives as uint 64, which msgpackr reads as a bigint; a client
    // compares it as the number it sent.
    const id = typeof doc.id === 'bigint' ? Number(doc.id) : doc.id;
    if (doc.error !== undefined) return { id, error: doc.error };
    if (doc.type !== undefined) {
      return { id, type: doc.type, ...(doc.models !== undefined && { models: doc.models }) };
    }
    return {
      id,
      model_name: doc.model_name,
      model_version: doc.model_version,
      outputs: doc.outputs.map((o) => ({ ...o, data: new Uint8Array(o.data) })),
    };
  },
  wireId: (id) => id,
});
