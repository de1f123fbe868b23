// --http-restricted-api end to end, on each front end (uWS where its binary loads, and node:http +
// ws everywhere): a restricted endpoint answers 403 with Triton's body unless the request carries
// its category's header, each header opens only its own categories, unrestricted endpoints and
// unknown paths behave as before, and WebSocket frames are checked against the upgrade's headers.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { msgpackClientCodec, type ServerReply } from '../../src/client/client-codecs.js';
import { tensor } from '../../src/client/client-tensor.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import { parseApiRestrictions } from '../../src/http/restricted-apis.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import { grpcClient } from '../helpers/grpc-client.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { RawSocket } from './websocket-raw-socket.js';

const FRONT_ENDS = [
  { name: 'uws', choice: 'uws', skip: loadUws().ok ? false : 'uWS binary not available here' },
  { name: 'node-http + ws', choice: 'node', skip: false },
] as const;

type HeaderMap = Record<string, string>;

const INFER_KEY: HeaderMap = { 'X-Infer-Key': 's3cret' };
const ADMIN: HeaderMap = { 'Admin-Token': 'adm=in:1' };
const refusedBody = (header: string): unknown => ({
  error: `This API is restricted, expecting header '${header}'`,
});

const SIMPLE_BODY = JSON.stringify({
  inputs: [
    {
      name: 'INPUT0',
      datatype: 'INT32',
      shape: [1, 16],
      data: Array.from({ length: 16 }, (_, i) => i),
    },
    { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: new Array<number>(16).fill(1) },
  ],
});

function simpleFrame(id: number): Uint8Array {
  return msgpackClientCodec.encodeRequest(
    id,
    'simple',
    [
      tensor(
        'INPUT0',
        'INT32',
        [1, 16],
        Int32Array.from({ length: 16 }, (_, i) => i),
      ),
      tensor('INPUT1', 'INT32', [1, 16], new Int32Array(16).fill(1)),
    ],
    { outputs: ['OUTPUT0'] },
  );
}

async function reply(raw: RawSocket): Promise<ServerReply> {
  return msgpackClientCodec.decodeReply(await raw.nextFrame());
}

for (const fe of FRONT_ENDS) {
  void describe(`--http-restricted-api on ${fe.name}`, { skip: fe.skip }, () => {
    let t: TestServer;
    let wsUrl: string;

    /** Status and parsed body (or undefined when empty) of one request. */
    const request = async (
      method: 'GET' | 'POST',
      path: string,
      headers: HeaderMap = {},
      body?: string,
    ): Promise<{ status: number; json: unknown }> => {
      const res = await fetch(`${t.base}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await res.text();
      return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
    };

    before(async () => {
      const repo = await tempRepository();
      await copyModel(repo, 'simple');
      t = await startTestServer({
        modelRepositories: [repo],
        httpFrontEnd: fe.choice,
        httpRestrictedApis: parseApiRestrictions([
          'inference,model-repository:X-Infer-Key=s3cret',
          'health,metadata:Admin-Token=adm=in:1',
        ]),
      });
      wsUrl = `${t.base.replace('http', 'ws')}${WS_PATH}`;
    });
    after(async () => {
      await t.close();
    });

    void it('inference: 403 without the header or with a wrong value, 200 with it', async () => {
      const path = '/v2/models/simple/infer';
      const wrong: HeaderMap[] = [
        {},
        { 'X-Infer-Key': 's3creT' },
        { 'X-Infer-Key': 's3cret-and-more' },
        ADMIN,
      ];
      for (const headers of wrong) {
        const r = await request('POST', path, headers, SIMPLE_BODY);
        assert.equal(r.status, 403, JSON.stringify(headers));
        assert.deepEqual(r.json, refusedBody('x-infer-key'));
      }
      for (const headers of [INFER_KEY, { 'x-INFER-key': 's3cret' }]) {
        const ok = await request('POST', path, headers, SIMPLE_BODY);
        assert.equal(ok.status, 200, JSON.stringify(ok.json));
        const out = (ok.json as any).outputs.find((o: any) => o.name === 'OUTPUT0');
        assert.deepEqual(
          out.data,
          Array.from({ length: 16 }, (_, i) => i + 1),
        );
      }
    });

    void it('model-repository: POST /v2/repository/index needs the same header', async () => {
      for (const headers of [{}, { 'X-Infer-Key': 'nope' }, ADMIN] as HeaderMap[]) {
        const r = await request('POST', '/v2/repository/index', headers);
        assert.equal(r.status, 403);
        assert.deepEqual(r.json, refusedBody('x-infer-key'));
      }
      const ok = await request('POST', '/v2/repository/index', INFER_KEY);
      assert.equal(ok.status, 200);
      assert.deepEqual(
        (ok.json as any[]).map((m) => [m.name, m.state]),
        [['simple', 'READY']],
      );
    });

    void it('health: server and model readiness need the admin header', async () => {
      for (const path of ['/v2/health/live', '/v2/health/ready', '/v2/models/simple/ready']) {
        for (const headers of [{}, INFER_KEY, { 'Admin-Token': 'adm=in' }] as HeaderMap[]) {
          const r = await request('GET', path, headers);
          assert.equal(r.status, 403, `${path} ${JSON.stringify(headers)}`);
          assert.deepEqual(r.json, refusedBody('admin-token'));
        }
        assert.equal((await request('GET', path, ADMIN)).status, 200, path);
      }
    });

    void it('metadata: server and model metadata need the admin header', async () => {
      for (const path of ['/v2', '/v2/models/simple', '/v2/models/simple/versions/1']) {
        for (const headers of [{}, INFER_KEY]) {
          const r = await request('GET', path, headers);
          assert.equal(r.status, 403, `${path} ${JSON.stringify(headers)}`);
          assert.deepEqual(r.json, refusedBody('admin-token'));
        }
        const ok = await request('GET', path, ADMIN);
        assert.equal(ok.status, 200, path);
        assert.ok((ok.json as any).name !== undefined);
      }
    });

    void it('refuses before the method check, as Triton does', async () => {
      const refused = await request('GET', '/v2/models/simple/infer');
      assert.equal(refused.status, 403);
      assert.equal((await request('GET', '/v2/models/simple/infer', INFER_KEY)).status, 405);
    });

    void it('leaves unrestricted endpoints and unknown paths as they were', async () => {
      const config = await request('GET', '/v2/models/simple/config');
      assert.equal(config.status, 200);
      assert.equal((config.json as any).name, 'simple');
      assert.equal((await request('GET', '/v2/models/stats')).status, 200);
      assert.equal((await request('GET', '/v2/models/simple/stats')).status, 200);
      for (const path of ['/v2/nope', '/v2/models/simple/bogus', '/v2/models']) {
        const r = await request('GET', path);
        assert.equal(r.status, 404, path);
        assert.deepEqual(r.json, { error: 'Not Found' });
      }
    });

    void it('leaves gRPC to --grpc-restricted-protocol', async () => {
      const c = grpcClient(t.grpcTarget);
      try {
        assert.equal((await c.call('ServerMetadata', {})).name, 'infernode');
      } finally {
        c.close();
      }
    });

    void it('WebSocket: an infer frame without the header gets RESTRICTED_API, and the socket stays usable', async () => {
      for (const headers of [{}, { 'X-Infer-Key': 'wrong' }, ADMIN] as HeaderMap[]) {
        const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL, headers);
        try {
          for (const id of [1, 2]) {
            raw.send(simpleFrame(id));
            const r = await reply(raw);
            assert.deepEqual(r, {
              id,
              error: {
                code: 'RESTRICTED_API',
                message: "This API is restricted, expecting header 'x-infer-key'",
              },
            });
          }
          raw.send(msgpackClientCodec.encodeCancel(2));
          const cancel = await reply(raw);
          assert.ok('error' in cancel && cancel.error.code === 'RESTRICTED_API');
          // Still open: a frame that is no request at all is still answered under its id.
          raw.send(new Uint8Array([0x81, 0xa2, 0x69, 0x64, 0x05]));
          const odd = await reply(raw);
          assert.equal(odd.id, 5);
          assert.ok('error' in odd && odd.error.code !== 'RESTRICTED_API', JSON.stringify(odd));
        } finally {
          raw.close();
        }
      }
    });

    void it('WebSocket: with the header on the upgrade, infer frames are answered', async () => {
      const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL, { 'x-infer-KEY': 's3cret' });
      try {
        raw.send(simpleFrame(9));
        const r = await reply(raw);
        assert.ok('result' in r, JSON.stringify(r));
        assert.equal(r.id, 9);
        const [out] = r.result.outputs;
        assert.equal(out?.name, 'OUTPUT0');
        assert.deepEqual(
          Array.from(out.data as Int32Array),
          Array.from({ length: 16 }, (_, i) => i + 1),
        );
      } finally {
        raw.close();
      }
    });
  });
}
