// Triton's model-repository API on a real server in the default control mode (none), over every
// transport: the index with and without the ready filter, and load and unload answered with
// Triton's refusal (HTTP 503, gRPC UNAVAILABLE, WebSocket MODEL_CONTROL_DISABLED error frames), on
// the wire and through the typed client of each protocol.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import {
  InferenceClient,
  InferenceClientError,
  type ClientProtocol,
} from '../../src/client/inference-client.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import { grpcClient, type GrpcTestClient } from '../helpers/grpc-client.js';
import { copyModel, tempRepository, writeModel } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const REFUSAL = 'explicit model load / unload is not allowed if polling is enabled';

/** The code each client protocol reports Triton's refusal with. */
const REFUSAL_CODES: Readonly<Record<ClientProtocol, string>> = {
  'http-json': 'HTTP_503',
  'http-binary': 'HTTP_503',
  ws: 'MODEL_CONTROL_DISABLED',
  'ws-flatbuffers': 'MODEL_CONTROL_DISABLED',
  grpc: 'GRPC_UNAVAILABLE',
};

interface Row {
  readonly name: string;
  readonly state?: string;
}

/** name -> state, from index rows of any transport. */
const states = (rows: readonly Row[]): Record<string, string | undefined> =>
  Object.fromEntries(rows.map((r) => [r.name, r.state]));

void describe('the repository API in --model-control-mode=none', () => {
  let repo: string;
  let t: TestServer;
  let grpc: GrpcTestClient;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await writeModel(repo, 'broken', 'this is { not pbtxt');
    t = await startTestServer({ modelRepositories: [repo], strictReadiness: false });
    grpc = grpcClient(t.grpcTarget);
  });
  after(async () => {
    grpc.close();
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('HTTP: the index lists every model, or the READY ones', async () => {
    const all = await fetch(`${t.base}/v2/repository/index`, { method: 'POST' });
    assert.equal(all.status, 200);
    const rows = (await all.json()) as Row[];
    assert.deepEqual(states(rows), { broken: 'UNAVAILABLE', simple: 'READY' });
    const ready = await postJson(`${t.base}/v2/repository/index`, { ready: true });
    assert.deepEqual(states(ready.json as Row[]), { simple: 'READY' });
  });

  void it('HTTP: load and unload answer 503 with Triton error body', async () => {
    for (const [action, body] of [
      ['load', { parameters: { config: '{"name":"simple"}' } }],
      ['unload', { parameters: { unload_dependents: true } }],
      ['load', ''],
      ['unload', ''],
    ] as const) {
      const r = await postJson(`${t.base}/v2/repository/models/simple/${action}`, body);
      assert.equal(r.status, 503, `${action}: ${JSON.stringify(r.json)}`);
      assert.deepEqual(r.json, { error: REFUSAL });
    }
  });

  void it('HTTP: a malformed load body is refused before the control mode is consulted', async () => {
    const r = await postJson(`${t.base}/v2/repository/models/simple/load`, {
      parameters: { 'file:1/model.onnx': 'AAAA' },
    });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /^Load parameter 'config' must be specified/);
  });

  void it('gRPC: the index with and without ready; load and unload are UNAVAILABLE', async () => {
    const all = await grpc.call('RepositoryIndex', {});
    assert.deepEqual(states(all.models), { broken: 'UNAVAILABLE', simple: 'READY' });
    const ready = await grpc.call('RepositoryIndex', { ready: true });
    assert.deepEqual(states(ready.models), { simple: 'READY' });
    for (const rpc of ['RepositoryModelLoad', 'RepositoryModelUnload']) {
      await assert.rejects(grpc.call(rpc, { model_name: 'simple' }), (e: any) => {
        assert.equal(e.code, status.UNAVAILABLE, `${rpc}: ${e.details}`);
        assert.equal(e.details, REFUSAL);
        return true;
      });
    }
  });

  void it('WebSocket (msgpack on the wire): index frames, and error frames for load and unload', async () => {
    const packr = new Packr({ useRecords: false });
    const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
    const socket = new WebSocket(`${t.base.replace('http', 'ws')}${WS_PATH}`, [MSGPACK_PROTOCOL]);
    socket.binaryType = 'nodebuffer';
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const replies = new Map<unknown, any>();
    const all = new Promise<void>((resolve) => {
      socket.on('message', (data: Buffer) => {
        const doc = unpackr.unpack(data) as { id: unknown };
        replies.set(doc.id, doc);
        if (replies.size === 4) resolve();
      });
    });
    socket.send(packr.pack({ id: 1, type: 'repository_index' }));
    socket.send(packr.pack({ id: 2, type: 'repository_index', ready: true }));
    socket.send(packr.pack({ id: 3, type: 'model_load', model: 'simple' }));
    socket.send(packr.pack({ id: 4, type: 'model_unload', model: 'simple' }));
    await all;
    socket.close();
    assert.equal(replies.get(1).type, 'repository_index');
    assert.deepEqual(states(replies.get(1).models), { broken: 'UNAVAILABLE', simple: 'READY' });
    assert.deepEqual(states(replies.get(2).models), { simple: 'READY' });
    for (const id of [3, 4]) {
      assert.deepEqual(replies.get(id), {
        id,
        error: { code: 'MODEL_CONTROL_DISABLED', message: REFUSAL },
      });
    }
  });

  for (const protocol of Object.keys(REFUSAL_CODES) as ClientProtocol[]) {
    void it(`the typed client over ${protocol}: index, and the refusal of load and unload`, async () => {
      const client = new InferenceClient({
        url: protocol === 'grpc' ? t.grpcTarget : t.base,
        protocol,
        timeoutMs: 10_000,
      });
      try {
        assert.deepEqual(states(await client.repositoryIndex()), {
          broken: 'UNAVAILABLE',
          simple: 'READY',
        });
        assert.deepEqual(states(await client.repositoryIndex({ readyOnly: true })), {
          simple: 'READY',
        });
        const refused = (e: unknown): boolean => {
          assert.ok(e instanceof InferenceClientError);
          assert.equal(e.code, REFUSAL_CODES[protocol]);
          assert.equal(e.message, REFUSAL);
          return true;
        };
        await assert.rejects(
          client.loadModel('simple', {
            config: { name: 'simple' },
            files: { '1/model.onnx': Uint8Array.of(1, 2, 3) },
          }),
          refused,
        );
        await assert.rejects(client.unloadModel('simple', { unloadDependents: true }), refused);
      } finally {
        await client.close();
      }
    });
  }
});
