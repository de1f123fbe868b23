// The shared-memory management frames of the WebSocket protocol (shm_register, shm_unregister,
// shm_status) against a real server and real /dev/shm files: the same registry as HTTP (a region
// registered over one is seen by the other), error frames with the catalog's codes, and the
// `shared-memory` restricted category and --allow-client-shm guarding them as they guard HTTP.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../../src/websocket/ws-protocol.js';
import { FIXTURE_REPOSITORY } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { ShmFiles } from './shm-fixture.js';

const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const files = new ShmFiles();

type Frame = Record<string, unknown>;

/** One msgpack socket; `call` sends a frame under a fresh id and resolves with its answer. */
class Socket {
  readonly #ws: WebSocket;
  readonly #waiting = new Map<number, (f: Frame) => void>();
  #next = 1;
  constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data: Buffer) => {
      const f = unpackr.unpack(data) as Frame;
      const done = this.#waiting.get(f['id'] as number);
      this.#waiting.delete(f['id'] as number);
      done?.(f);
    });
  }
  static async open(base: string, headers: Record<string, string> = {}): Promise<Socket> {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${WS_PATH}`, [MSGPACK_PROTOCOL], {
      headers,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Socket(ws);
  }
  call(frame: Frame): Promise<Frame> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#ws.send(packr.pack({ id, ...frame }));
    });
  }
  close(): void {
    this.#ws.close();
  }
}

const errorOf = (f: Frame) => f['error'] as { code: string; message: string } | undefined;

void describe('WebSocket shared-memory frames', () => {
  let ts: TestServer;
  let socket: Socket;

  before(async () => {
    ts = await startTestServer({
      modelRepositories: [FIXTURE_REPOSITORY],
      loadModels: [],
      allowClientShm: true,
      clientShmMaxRegions: 2,
    });
    socket = await Socket.open(ts.base);
  });
  after(async () => {
    socket.close();
    await ts.close();
    files.removeAll();
  });
  afterEach(async () => {
    await postJson(`${ts.base}/v2/systemsharedmemory/unregister`, '');
  });

  void it('registers, lists and unregisters, sharing the registry with HTTP', async () => {
    const key = files.create('ws-a', 256);
    assert.deepEqual(
      await socket.call({ type: 'shm_register', name: 'a', key, offset: 16, byte_size: 64 }),
      { id: 1, type: 'shm_register' },
    );
    const status = await socket.call({ type: 'shm_status' });
    assert.deepEqual(status['regions'], [{ name: 'a', key, offset: 16, byte_size: 64 }]);
    // HTTP sees the WebSocket's registration: one registry.
    const http = await fetch(`${ts.base}/v2/systemsharedmemory/region/a/status`);
    assert.deepEqual(await http.json(), [{ name: 'a', key, offset: 16, byte_size: 64 }]);
    const one = await socket.call({ type: 'shm_status', name: 'a' });
    assert.deepEqual(one['regions'], status['regions']);
    assert.equal(
      (await socket.call({ type: 'shm_unregister', name: 'a' }))['type'],
      'shm_unregister',
    );
    assert.deepEqual((await socket.call({ type: 'shm_status' }))['regions'], []);
  });

  void it('unregisters every region when the frame names none', async () => {
    const key = files.create('ws-all', 64);
    for (const name of ['x', 'y']) {
      const r = await socket.call({ type: 'shm_register', name, key, byte_size: 32 });
      assert.equal(errorOf(r), undefined, JSON.stringify(r));
    }
    await socket.call({ type: 'shm_unregister' });
    assert.deepEqual((await socket.call({ type: 'shm_status' }))['regions'], []);
  });

  void it('answers bad regions with error frames carrying the catalog codes', async () => {
    const key = files.create('ws-bad', 64);
    const cases: [Frame, string, RegExp][] = [
      [{ type: 'shm_status', name: 'nope' }, 'SHM_NOT_FOUND', /Unable to find system shared/],
      [{ type: 'shm_register', name: 'big', key, offset: 32, byte_size: 64 }, 'SHM_BAD_SLICE', /./],
      [{ type: 'shm_register', name: 'k', key: '../etc/passwd', byte_size: 8 }, 'SHM_BAD_KEY', /./],
      [
        { type: 'shm_register', name: 'm', key: '/infernode-test-missing-region', byte_size: 8 },
        'SHM_NOT_OPENED',
        /./,
      ],
      [{ type: 'shm_register', name: 'n', key }, 'BAD_REQUEST', /'byte_size' must be an unsigned/],
      [{ type: 'shm_register', name: 7, key, byte_size: 8 }, 'BAD_REQUEST', /'name' must be/],
      [{ type: 'shm_nonsense' }, 'BAD_REQUEST', /'shm_register', 'shm_unregister', 'shm_status'/],
    ];
    for (const [frame, code, message] of cases) {
      const err = errorOf(await socket.call(frame));
      assert.equal(err?.code, code, `${JSON.stringify(frame)}: ${JSON.stringify(err)}`);
      assert.match(err.message, message);
    }
    // A name registered twice, and the cap (--client-shm-max-regions 2).
    await socket.call({ type: 'shm_register', name: 'p', key, byte_size: 8 });
    const again = errorOf(
      await socket.call({ type: 'shm_register', name: 'p', key, byte_size: 8 }),
    );
    assert.equal(again?.code, 'SHM_ALREADY_REGISTERED');
    await socket.call({ type: 'shm_register', name: 'q', key, byte_size: 8 });
    const over = errorOf(await socket.call({ type: 'shm_register', name: 'r', key, byte_size: 8 }));
    assert.equal(over?.code, 'SHM_LIMIT');
  });
});

void describe('WebSocket shared-memory frames: guarded as HTTP is', () => {
  after(() => files.removeAll());

  void it('register and unregister are refused with SHM_DISABLED under --allow-client-shm=false; status lists none', async () => {
    const ts = await startTestServer({ modelRepositories: [FIXTURE_REPOSITORY], loadModels: [] });
    const socket = await Socket.open(ts.base);
    try {
      const key = files.create('off', 16);
      const err = errorOf(
        await socket.call({ type: 'shm_register', name: 'o', key, offset: 0, byte_size: 16 }),
      );
      assert.equal(err?.code, 'SHM_DISABLED');
      assert.match(err.message, /--allow-client-shm=true/);
      assert.equal(errorOf(await socket.call({ type: 'shm_unregister' }))?.code, 'SHM_DISABLED');
      // As over HTTP and gRPC, and as in Triton: status still answers, with no regions.
      assert.deepEqual((await socket.call({ type: 'shm_status' }))['regions'], []);
    } finally {
      socket.close();
      await ts.close();
    }
  });

  void it('need the shared-memory category header of --http-restricted-api', async () => {
    const ts = await startTestServer({
      modelRepositories: [FIXTURE_REPOSITORY],
      loadModels: [],
      allowClientShm: true,
      httpRestrictedApis: [{ categories: ['shared-memory'], header: 'admin', value: 'yes' }],
    });
    const plain = await Socket.open(ts.base);
    const admin = await Socket.open(ts.base, { admin: 'yes' });
    try {
      const key = files.create('ws-guard', 16);
      const frame = { type: 'shm_register', name: 'g', key, byte_size: 16 };
      assert.equal(errorOf(await plain.call(frame))?.code, 'RESTRICTED_API');
      assert.equal(errorOf(await plain.call({ type: 'shm_status' }))?.code, 'RESTRICTED_API');
      assert.equal((await admin.call(frame))['type'], 'shm_register');
      assert.deepEqual(
        ((await admin.call({ type: 'shm_status' }))['regions'] as Frame[]).map((r) => r['name']),
        ['g'],
      );
    } finally {
      plain.close();
      admin.close();
      await ts.close();
    }
  });
});
