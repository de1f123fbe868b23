// WsSession with repository frames, over the fake data plane: index, load and unload frames reach
// the data plane and are answered under their ids; failures become error frames; a load holds its
// slot until answered (duplicate ids, the in-flight cap), ignores cancel frames, and a socket that
// closes meanwhile gets nothing more. Both encodings.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Builder, ByteBuffer } from 'flatbuffers';
import { Packr, Unpackr } from 'msgpackr';
import {
  ClientFrame,
  RepositoryIndex,
  ServerFrame,
} from '../../../schemas/generated/infernode-ws_generated.js';
import { fail } from '../../../src/errors.js';
import { streamingRoute } from '../../../src/websocket/ws-route.js';
import { FLATBUFFERS_PROTOCOL, MSGPACK_PROTOCOL } from '../../../src/websocket/ws-protocol.js';
import { WsSession } from '../../../src/websocket/ws-session.js';
import { FakeDataPlane } from '../http/fake-data-plane.js';
import { flush } from '../scheduler/fixtures.js';
import { FakeSocket } from './ws-session-harness.js';

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

function open(maxInflight = 16, protocol: string = MSGPACK_PROTOCOL) {
  const plane = new FakeDataPlane();
  const socket = new FakeSocket();
  const session = streamingRoute(plane, { limits: { maxInflight } }).open(
    socket,
    protocol,
    new Map(),
  );
  assert.ok(session instanceof WsSession);
  const send = async (doc: Record<string, unknown>): Promise<void> => {
    session.message(packr.pack(doc), true, false);
    await flush();
  };
  const replies = (): unknown[] => socket.frames.map((f) => unpackr.unpack(f) as unknown);
  return { plane, socket, session, send, replies };
}

/** A gate the fake data plane's load and unload wait on, opened by the test. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

void describe('WsSession: repository frames', () => {
  void it('answers an index frame with the rows, filtered when ready is set', async () => {
    const s = open();
    await s.send({ id: 1, type: 'repository_index' });
    await s.send({ id: 2, type: 'repository_index', ready: true });
    const [all, ready] = s.replies() as { id: number; type: string; models: unknown[] }[];
    assert.deepEqual(all, {
      id: 1,
      type: 'repository_index',
      models: [
        { name: 'echo', version: '1', state: 'READY', reason: '' },
        { name: 'pair', version: '1', state: 'READY', reason: '' },
        { name: 'broken', state: 'UNAVAILABLE', reason: 'config.pbtxt: no such file' },
      ],
    });
    assert.deepEqual(
      ready?.models.map((m) => (m as { name: string }).name),
      ['echo', 'pair'],
    );
  });

  void it('hands loads and unloads to the data plane and answers with their type', async () => {
    const s = open();
    await s.send({
      id: 'l',
      type: 'model_load',
      model: 'echo',
      parameters: { config: '{}', 'file:1/model.onnx': Buffer.of(1, 2) },
    });
    await s.send({
      id: 'u',
      type: 'model_unload',
      model: 'echo',
      parameters: { unload_dependents: true },
    });
    assert.deepEqual(s.replies(), [
      { id: 'l', type: 'model_load' },
      { id: 'u', type: 'model_unload' },
    ]);
    assert.deepEqual(s.plane.loadCalls, [
      {
        name: 'echo',
        request: { config: '{}', files: new Map([['1/model.onnx', Buffer.of(1, 2)]]) },
      },
    ]);
    assert.deepEqual(s.plane.unloadCalls, [{ name: 'echo', unloadDependents: true }]);
  });

  void it("answers the data plane's refusal with an error frame carrying its code", async () => {
    const s = open();
    s.plane.controlFailure = fail(
      'MODEL_CONTROL_DISABLED',
      'explicit model load / unload is not allowed if polling is enabled',
    );
    await s.send({ id: 1, type: 'model_load', model: 'echo' });
    await s.send({ id: 2, type: 'model_unload', model: 'echo' });
    assert.deepEqual(
      s.replies(),
      [1, 2].map((id) => ({
        id,
        error: {
          code: 'MODEL_CONTROL_DISABLED',
          message: 'explicit model load / unload is not allowed if polling is enabled',
        },
      })),
    );
    assert.equal(s.session.inflight, 0);
  });

  void it('answers a refused frame under its id, without calling the data plane', async () => {
    const s = open();
    await s.send({ id: 3, type: 'model_load', model: 'echo', parameters: { config: 5 } });
    assert.deepEqual(s.replies(), [
      {
        id: 3,
        error: {
          code: 'BAD_PARAMETER',
          message: "load parameter 'config' must be a str, got the number 5",
        },
      },
    ]);
    assert.equal(s.plane.loadCalls.length, 0);
  });

  void it('a load holds its slot until answered: duplicate ids and the cap apply', async () => {
    const s = open(2);
    const g = gate();
    s.plane.controlGate = g.promise;
    await s.send({ id: 1, type: 'model_load', model: 'echo' });
    await s.send({ id: 1, type: 'repository_index' });
    await s.send({ id: 2, type: 'model_unload', model: 'echo' });
    await s.send({ id: 3, type: 'repository_index' });
    assert.equal(s.session.inflight, 2);
    const early = s.replies() as { id: number; error: { code: string } }[];
    assert.deepEqual(
      early.map((r) => [r.id, r.error.code]),
      [
        [1, 'DUPLICATE_ID'],
        [3, 'QUEUE_FULL'],
      ],
    );
    g.open();
    await flush();
    assert.deepEqual(s.replies().slice(2), [
      { id: 1, type: 'model_load' },
      { id: 2, type: 'model_unload' },
    ]);
    assert.equal(s.session.inflight, 0);
  });

  void it('a cancel frame leaves a load running to its answer', async () => {
    const s = open();
    const g = gate();
    s.plane.controlGate = g.promise;
    await s.send({ id: 4, type: 'model_load', model: 'echo' });
    await s.send({ id: 4, cancel: true });
    assert.deepEqual(s.replies(), []);
    g.open();
    await flush();
    assert.deepEqual(s.replies(), [{ id: 4, type: 'model_load' }]);
  });

  void it('a socket that closes during a load gets nothing more', async () => {
    const s = open();
    const g = gate();
    s.plane.controlGate = g.promise;
    await s.send({ id: 5, type: 'model_unload', model: 'echo' });
    s.session.closed();
    g.open();
    await flush();
    assert.deepEqual(s.socket.frames, []);
    assert.equal(s.plane.unloadCalls.length, 1, 'the unload itself still ran');
  });

  void it('FlatBuffers: an index frame is answered with a ServerFrame of type and models', async () => {
    const s = open(16, FLATBUFFERS_PROTOCOL);
    const b = new Builder(64);
    const index = RepositoryIndex.createRepositoryIndex(b, b.createString('ix'), true);
    ClientFrame.startClientFrame(b);
    ClientFrame.addRepositoryIndex(b, index);
    b.finish(ClientFrame.endClientFrame(b));
    s.session.message(b.asUint8Array(), true, false);
    await flush();
    const [frame] = s.socket.frames;
    assert.ok(frame !== undefined);
    const reply = ServerFrame.getRootAsServerFrame(new ByteBuffer(frame));
    assert.equal(reply.id(), 'ix');
    assert.equal(reply.type(), 'repository_index');
    assert.deepEqual(
      Array.from({ length: reply.modelsLength() }, (_, i) => reply.models(i)?.name()),
      ['echo', 'pair'],
    );
  });
});
