// Tensors that name a shared-memory region in WebSocket infer frames (msgpack and FlatBuffers), against a real
// server and a real /dev/shm file: inputs read from the region, outputs written into it and
// answered with their shared_memory_* parameters and no data, and error frames with the catalog's
// codes for a bad region (not registered, out of bounds, wrong size, both data and a region).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import { Builder, ByteBuffer } from 'flatbuffers';
import {
  ClientFrame,
  InferRequest,
  RequestedOutput,
  ServerFrame,
  Tensor as FbTensor,
} from '../../../schemas/generated/infernode-ws_generated.js';
import {
  readParameterTables,
  writeParameterTables,
} from '../../../src/websocket/flatbuffers-parameters.js';
import {
  FLATBUFFERS_PROTOCOL,
  MSGPACK_PROTOCOL,
  WS_PATH,
} from '../../../src/websocket/ws-protocol.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { ShmFiles } from './shm-fixture.js';

const A = Int32Array.from({ length: 16 }, (_, i) => i * 3 - 7);
const B = Int32Array.from({ length: 16 }, (_, i) => 100 - i * i);
const SUM = A.map((a, i) => a + (B[i] as number));
const DIFF = A.map((a, i) => a - (B[i] as number));
const BYTES = 64; // one [1, 16] INT32 tensor
const files = new ShmFiles();
const bytesOf = (a: Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

void describe('WebSocket: tensors in shared memory, frame by frame', () => {
  const packr = new Packr({ useRecords: false, variableMapSize: true });
  const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
  let ts: TestServer;
  let key: string;
  /** The INT32 tensor at `offset` in the region file. */
  const at = (offset: number) =>
    new Int32Array(Uint8Array.prototype.slice.call(files.read(key), offset, offset + BYTES).buffer);

  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    ts = await startTestServer({ modelRepositories: [repo], allowClientShm: true });
    key = files.create(
      'ws-tensors',
      Buffer.concat([bytesOf(A), bytesOf(B), Buffer.alloc(2 * BYTES)]),
    );
  });
  after(async () => {
    await ts.close();
    files.removeAll();
  });

  void it('registers, infers with outputs written to the region, and answers bad regions with error frames', async () => {
    const ws = new WebSocket(`${ts.base.replace(/^http/, 'ws')}${WS_PATH}`, [MSGPACK_PROTOCOL]);
    const replies = new Map<number, Record<string, any>>();
    const waiters = new Map<number, () => void>();
    ws.on('message', (d: Buffer) => {
      const f = unpackr.unpack(d) as Record<string, any>;
      replies.set(f['id'], f);
      waiters.get(f['id'])?.();
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const call = (frame: Record<string, unknown>): Promise<Record<string, any>> =>
      new Promise((resolve) => {
        waiters.set(frame['id'] as number, () => resolve(replies.get(frame['id'] as number)!));
        ws.send(packr.pack(frame));
      });
    const shm = (offset: number) => ({
      shared_memory_region: 'r',
      shared_memory_byte_size: BYTES,
      ...(offset > 0 && { shared_memory_offset: offset }),
    });
    try {
      const reg = await call({
        id: 1,
        type: 'shm_register',
        name: 'r',
        key,
        byte_size: 4 * BYTES,
      });
      assert.deepEqual(reg, { id: 1, type: 'shm_register' });
      const answer = await call({
        id: 2,
        model: 'simple',
        inputs: [
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: shm(0) },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], parameters: shm(BYTES) },
        ],
        outputs: [
          { name: 'OUTPUT0', parameters: shm(2 * BYTES) },
          { name: 'OUTPUT1', parameters: shm(3 * BYTES) },
        ],
      });
      // Outputs in the region: their parameters, no data.
      assert.deepEqual(answer['outputs'], [
        { name: 'OUTPUT0', datatype: 'INT32', shape: [1, 16], parameters: shm(2 * BYTES) },
        { name: 'OUTPUT1', datatype: 'INT32', shape: [1, 16], parameters: shm(3 * BYTES) },
      ]);
      assert.deepEqual(at(2 * BYTES), SUM);
      assert.deepEqual(at(3 * BYTES), DIFF);

      const bad = async (
        id: number,
        input: Record<string, unknown>,
        code: string,
        message: RegExp,
      ) => {
        const f = await call({
          id,
          model: 'simple',
          inputs: [
            input,
            { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Buffer.from(B.buffer) },
          ],
        });
        assert.equal(f['error']?.code, code, JSON.stringify(f));
        assert.match(f['error'].message, message);
      };
      const input0 = { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] };
      await bad(
        3,
        { ...input0, parameters: { ...shm(0), shared_memory_region: 'gone' } },
        'SHM_NOT_FOUND',
        /gone/,
      );
      await bad(4, { ...input0, parameters: shm(4 * BYTES) }, 'SHM_BAD_SLICE', /./);
      await bad(
        5,
        { ...input0, parameters: { ...shm(0), shared_memory_byte_size: 60 } },
        'BYTE_SIZE_MISMATCH',
        /60/,
      );
      await bad(
        6,
        { ...input0, parameters: shm(0), data: Buffer.from(A.buffer) },
        'BAD_REQUEST',
        /also carries data/,
      );
      await bad(
        7,
        { ...input0, parameters: { shared_memory_region: 'r' } },
        'BAD_PARAMETER',
        /shared_memory_byte_size/,
      );
    } finally {
      ws.close();
    }
  });
});

void describe('WebSocket (FlatBuffers): tensors in shared memory', () => {
  let ts: TestServer;
  let key: string;

  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    ts = await startTestServer({ modelRepositories: [repo], allowClientShm: true });
    key = files.create('ws-fb', Buffer.concat([bytesOf(A), bytesOf(B), Buffer.alloc(2 * BYTES)]));
  });
  after(async () => {
    await ts.close();
    files.removeAll();
  });

  void it('reads inputs from the region and answers outputs with their parameters, no data', async () => {
    const reg = await fetch(`${ts.base}/v2/systemsharedmemory/region/fb/register`, {
      method: 'POST',
      body: JSON.stringify({ key, byte_size: 4 * BYTES }),
    });
    assert.equal(reg.status, 200);
    const shm = (offset: number) => ({
      shared_memory_region: 'fb',
      shared_memory_byte_size: BYTES,
      ...(offset > 0 && { shared_memory_offset: offset }),
    });
    const b = new Builder(1024);
    const inputs = ['INPUT0', 'INPUT1'].map((name, i) => {
      const params = FbTensor.createParametersVector(b, writeParameterTables(b, shm(i * BYTES)));
      const shape = FbTensor.createShapeVector(b, [1n, 16n]);
      return FbTensor.createTensor(
        b,
        b.createString(name),
        b.createString('INT32'),
        shape,
        0,
        params,
      );
    });
    const outputs = ['OUTPUT0', 'OUTPUT1'].map((name, i) =>
      RequestedOutput.createRequestedOutput(
        b,
        b.createString(name),
        RequestedOutput.createParametersVector(b, writeParameterTables(b, shm((2 + i) * BYTES))),
      ),
    );
    const inputsVector = InferRequest.createInputsVector(b, inputs);
    const outputsVector = InferRequest.createOutputsVector(b, outputs);
    const id = b.createString('1');
    const model = b.createString('simple');
    InferRequest.startInferRequest(b);
    InferRequest.addId(b, id);
    InferRequest.addModel(b, model);
    InferRequest.addInputs(b, inputsVector);
    InferRequest.addOutputs(b, outputsVector);
    const request = InferRequest.endInferRequest(b);
    ClientFrame.startClientFrame(b);
    ClientFrame.addInfer(b, request);
    b.finish(ClientFrame.endClientFrame(b));

    const ws = new WebSocket(`${ts.base.replace(/^http/, 'ws')}${WS_PATH}`, [FLATBUFFERS_PROTOCOL]);
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const reply = await new Promise<Buffer>((resolve) => {
        ws.once('message', resolve);
        ws.send(b.asUint8Array());
      });
      const frame = ServerFrame.getRootAsServerFrame(new ByteBuffer(new Uint8Array(reply)));
      assert.equal(frame.error(), null, frame.error()?.message() ?? '');
      assert.equal(frame.outputsLength(), 2);
      for (let i = 0; i < 2; i++) {
        const t = frame.outputs(i)!;
        assert.equal(t.dataLength(), 0);
        const params = readParameterTables(t.parametersLength(), (k) => t.parameters(k), 'output');
        assert.deepEqual({ ...params }, shm((2 + i) * BYTES));
      }
      const file = files.read(key);
      const at = (offset: number) =>
        new Int32Array(Uint8Array.prototype.slice.call(file, offset, offset + BYTES).buffer);
      assert.deepEqual(at(2 * BYTES), SUM);
      assert.deepEqual(at(3 * BYTES), DIFF);
    } finally {
      ws.close();
    }
  });
});
