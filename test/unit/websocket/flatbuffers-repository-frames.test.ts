// The FlatBuffers repository frames' own refusals: a ClientFrame setting two frame fields, a model
// file without a path, and damaged vectors (a file's data or the files list claiming more than the
// frame holds), each refused without throwing and without reading outside the frame.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Builder, ByteBuffer } from 'flatbuffers';
import {
  Cancel,
  ClientFrame,
  ModelFile,
  ModelLoad,
  RepositoryIndex,
} from '../../../schemas/generated/infernode-ws_generated.js';
import { decodeFlatbuffersFrame } from '../../../src/websocket/flatbuffers-frames.js';
import { assertRefused } from './frame-codec-case.js';

const CONFIG = '{"name":"m"}';

/** A load frame with one file, built by `file` (which may leave the path out). */
function loadFrame(file: (b: Builder) => number): Uint8Array {
  const b = new Builder(256);
  const files = ModelLoad.createFilesVector(b, [file(b)]);
  const load = ModelLoad.createModelLoad(
    b,
    b.createString('7'),
    b.createString('m'),
    b.createString(CONFIG),
    files,
  );
  ClientFrame.startClientFrame(b);
  ClientFrame.addModelLoad(b, load);
  b.finish(ClientFrame.endClientFrame(b));
  return b.asUint8Array();
}

const goodFile = (b: Builder): number =>
  ModelFile.createModelFile(
    b,
    b.createString('1/model.onnx'),
    b.createByteVector(Uint8Array.of(1, 2)),
  );

/** The byte offset of a vector's length prefix: `field` of the table at `tablePos`. */
function vectorLengthAt(bb: ByteBuffer, tablePos: number, field: number): number {
  return bb.__vector(tablePos + bb.__offset(tablePos, field)) - 4;
}

/** The frame with the int32 at `at` overwritten (little-endian, as FlatBuffers stores it). */
function patched(frame: Uint8Array, at: number, value: number): Uint8Array {
  const copy = Uint8Array.from(frame);
  new DataView(copy.buffer).setInt32(at, value, true);
  return copy;
}

void describe('FlatBuffers repository frames: refusals', () => {
  void it('a ClientFrame that sets two frame fields closes the socket', () => {
    const b = new Builder(128);
    const cancel = Cancel.createCancel(b, b.createString('1'));
    const index = RepositoryIndex.createRepositoryIndex(b, b.createString('2'), false);
    ClientFrame.startClientFrame(b);
    ClientFrame.addCancel(b, cancel);
    ClientFrame.addRepositoryIndex(b, index);
    b.finish(ClientFrame.endClientFrame(b));
    assertRefused(
      decodeFlatbuffersFrame(b.asUint8Array(), false),
      undefined,
      'BAD_REQUEST',
      'a ClientFrame must set exactly one of infer, cancel, repository_index, model_load and ' +
        'model_unload',
    );
  });

  void it('a model file without a path', () => {
    const frame = loadFrame((b) => {
      const data = b.createByteVector(Uint8Array.of(1));
      b.startObject(2); // ModelFile, without the required path endModelFile would insist on
      ModelFile.addData(b, data);
      return b.endObject();
    });
    assertRefused(decodeFlatbuffersFrame(frame, false), '7', 'BAD_REQUEST', 'files[0] has no path');
  });

  void it("a file's data claiming more bytes than the frame holds", () => {
    const frame = loadFrame(goodFile);
    const bb = new ByteBuffer(frame);
    const file = ClientFrame.getRootAsClientFrame(bb).modelLoad()?.files(0);
    assert.ok(file !== null && file !== undefined);
    const at = vectorLengthAt(bb, file.bb_pos, 6); // ModelFile.data
    assertRefused(
      decodeFlatbuffersFrame(patched(frame, at, 1 << 30), true),
      '7',
      'BAD_REQUEST',
      `undecodable frame: file '1/model.onnx' data lies outside the frame (${1 << 30} bytes at ` +
        `byte ${at + 4} of a ${frame.byteLength}-byte frame)`,
    );
  });

  void it('a files list claiming more entries than the frame could hold', () => {
    const frame = loadFrame(goodFile);
    const bb = new ByteBuffer(frame);
    const load = ClientFrame.getRootAsClientFrame(bb).modelLoad();
    assert.ok(load !== null);
    const at = vectorLengthAt(bb, load.bb_pos, 10); // ModelLoad.files
    assertRefused(
      decodeFlatbuffersFrame(patched(frame, at, 100_000), false),
      '7',
      'BAD_REQUEST',
      `files claims 100000 entries, more than a ${frame.byteLength}-byte frame can hold`,
    );
  });
});
