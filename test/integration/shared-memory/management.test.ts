// Triton's system shared-memory management calls against a real server (HTTP and gRPC, real
// /dev/shm files): register, status, unregister; the key and bounds checks; the caps; the
// `shared-memory` restricted category; CUDA answered as a build without GPU support; and the
// registrations (their fds) gone when the server stops.

import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { after, afterEach, before, describe, it } from 'node:test';
import { grpcClient, type GrpcTestClient } from '../../helpers/grpc-client.js';
import { MODEL_REPOSITORY } from '../../helpers/paths.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { openShmFds, ShmFiles } from './shm-fixture.js';

const files = new ShmFiles();

async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

const rejection = (code: status, pattern: RegExp) => (e: any) => {
  assert.equal(e.code, code, e.details);
  assert.match(e.details, pattern);
  return true;
};

void describe('system shared memory: management calls', () => {
  let ts: TestServer;
  let grpc: GrpcTestClient;
  const shm = (path: string) => `${ts.base}/v2/systemsharedmemory${path}`;

  before(async () => {
    ts = await startTestServer({
      modelRepositories: [MODEL_REPOSITORY],
      modelControlMode: 'explicit',
      allowClientShm: true,
      clientShmMaxRegions: 4,
      clientShmMaxBytes: 4096,
    });
    grpc = grpcClient(ts.grpcTarget);
  });
  after(async () => {
    grpc.close();
    await ts.close();
    files.removeAll();
  });
  afterEach(async () => {
    await postJson(shm('/unregister'), '');
  });

  void it('is listed among the extensions of GET /v2', async () => {
    const meta = await getJson(`${ts.base}/v2`);
    assert.ok(meta.json.extensions.includes('system_shared_memory'), meta.json.extensions);
    assert.ok(!meta.json.extensions.includes('cuda_shared_memory'));
  });

  void it('registers, lists and unregisters a region over HTTP, in Triton shapes', async () => {
    const key = files.create('a', 256);
    const reg = await postJson(shm('/region/a/register'), { key, offset: 16, byte_size: 64 });
    assert.equal(reg.status, 200, JSON.stringify(reg.json));
    assert.equal(reg.json, '');
    const all = await getJson(shm('/status'));
    assert.deepEqual(all, {
      status: 200,
      json: [{ name: 'a', key, offset: 16, byte_size: 64 }],
    });
    assert.deepEqual((await getJson(shm('/region/a/status'))).json, all.json);
    const again = await postJson(shm('/region/a/register'), { key, offset: 0, byte_size: 8 });
    assert.equal(again.status, 400);
    assert.equal(again.json.error, "shared memory region 'a' already in manager");
    assert.equal((await postJson(shm('/region/a/unregister'), '')).status, 200);
    assert.deepEqual((await getJson(shm('/status'))).json, []);
    const gone = await getJson(shm('/region/a/status'));
    assert.equal(gone.status, 404);
    assert.equal(gone.json.error, "Unable to find system shared memory region: 'a'");
    // Unregistering what is not registered is no error, as in Triton.
    assert.equal((await postJson(shm('/region/a/unregister'), '')).status, 200);
  });

  void it('registers, lists and unregisters over gRPC, visible to HTTP', async () => {
    const key = files.create('g', 128);
    await grpc.call('SystemSharedMemoryRegister', { name: 'g', key, offset: 8, byte_size: 100 });
    const st = await grpc.call('SystemSharedMemoryStatus', {});
    assert.deepEqual(st.regions, { g: { name: 'g', key, offset: '8', byte_size: '100' } });
    assert.deepEqual((await getJson(shm('/status'))).json, [
      { name: 'g', key, offset: 8, byte_size: 100 },
    ]);
    await assert.rejects(
      grpc.call('SystemSharedMemoryRegister', { name: 'g', key, offset: 0, byte_size: 1 }),
      rejection(status.INVALID_ARGUMENT, /'g' already in manager/),
    );
    await grpc.call('SystemSharedMemoryUnregister', { name: 'g' });
    await assert.rejects(
      grpc.call('SystemSharedMemoryStatus', { name: 'g' }),
      rejection(status.NOT_FOUND, /Unable to find system shared memory region: 'g'/),
    );
  });

  void it('checks offset + byte_size against the file at registration', async () => {
    const key = files.create('small', 100);
    const over = await postJson(shm('/region/s/register'), { key, offset: 40, byte_size: 61 });
    assert.equal(over.status, 400);
    assert.equal(over.json.error, "failed to register shared memory region 's': invalid args");
    const fits = await postJson(shm('/region/s/register'), { key, offset: 40, byte_size: 60 });
    assert.equal(fits.status, 200);
  });

  void it('refuses keys that are paths, dot names, symlinks or missing files', async () => {
    const target = files.create('target', 64);
    const link = files.symlink('link', files.file(target));
    const cases: [string, RegExp][] = [
      ['/../etc/passwd', /not a shared-memory name: it contains '\/' after the first character/],
      ['../etc/passwd', /not a shared-memory name/],
      ['..', /not a shared-memory name: it is '..'/],
      ['/.', /it is '.'/],
      ['', /^cannot register shared memory region 'bad' - invalid shm key ''$/],
      ['a\u0000b', /NUL/],
      ['x'.repeat(300), /longer than 255 bytes/],
      [link, /Unable to open shared memory region/],
      ['/infernode-test-does-not-exist', /Unable to open shared memory region/],
    ];
    for (const [key, pattern] of cases) {
      const r = await postJson(shm('/region/bad/register'), { key, offset: 0, byte_size: 1 });
      assert.equal(r.status, 400, `${JSON.stringify(key)}: ${JSON.stringify(r.json)}`);
      assert.match(r.json.error, pattern);
    }
    assert.deepEqual((await getJson(shm('/status'))).json, []);
    assert.deepEqual(openShmFds(), []);
  });

  void it("refuses Triton's invalid and reserved keys in its words, and takes extra leading slashes as shm_open does", async () => {
    // Triton's qa/L0_shared_memory test_register_invalid_shm_key / test_register_reserved_names.
    for (const key of ['/', '///']) {
      const r = await postJson(shm('/region/my_region/register'), { key, byte_size: 16 });
      assert.equal(r.status, 400);
      assert.equal(
        r.json.error,
        `cannot register shared memory region 'my_region' - invalid shm key '${key}'`,
      );
    }
    const reserved = 'triton_python_backend_shm_region_';
    for (const key of [`${reserved}x`, `/${reserved}x`, `///${reserved}x`]) {
      const r = await postJson(shm('/region/my_region/register'), { key, byte_size: 16 });
      assert.equal(r.status, 400);
      assert.equal(
        r.json.error,
        `cannot register shared memory region 'my_region' with key '${key}' as the key ` +
          `contains the reserved prefix '${reserved}'`,
      );
      await assert.rejects(
        grpc.call('SystemSharedMemoryRegister', { name: 'my_region', key, byte_size: 16 }),
        rejection(status.INVALID_ARGUMENT, /as the key contains the reserved prefix/),
      );
    }
    const key = files.create('slashes', 16);
    const r = await postJson(shm('/region/slashes/register'), { key: `//${key}`, byte_size: 16 });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual((await getJson(shm('/status'))).json, [
      { name: 'slashes', key: `//${key}`, offset: 0, byte_size: 16 },
    ]);
  });

  void it('caps the number of regions and their total size', async () => {
    const key = files.create('cap', 4096);
    for (let i = 0; i < 4; i++) {
      const r = await postJson(shm(`/region/c${i}/register`), { key, offset: 0, byte_size: 16 });
      assert.equal(r.status, 200);
    }
    const fifth = await postJson(shm('/region/c4/register'), { key, offset: 0, byte_size: 16 });
    assert.equal(fifth.status, 400);
    assert.match(fifth.json.error, /4 regions are registered, the most --client-shm-max-regions/);
    await postJson(shm('/unregister'), '');
    await postJson(shm('/region/big/register'), { key, offset: 0, byte_size: 4000 });
    const over = await postJson(shm('/region/more/register'), { key, offset: 0, byte_size: 97 });
    assert.equal(over.status, 400);
    assert.match(over.json.error, /exceeds --client-shm-max-bytes 4096/);
  });

  void it('holds one fd per registration, closed when unregistered', async () => {
    const key = files.create('fd', 64);
    const before = openShmFds().length;
    await postJson(shm('/region/f1/register'), { key, offset: 0, byte_size: 8 });
    await postJson(shm('/region/f2/register'), { key, offset: 8, byte_size: 8 });
    assert.equal(openShmFds().length, before + 2);
    await postJson(shm('/unregister'), '');
    assert.equal(openShmFds().length, before);
  });

  void it('answers CUDA shared memory as a server built without GPU support', async () => {
    const cuda = (path: string) => `${ts.base}/v2/cudasharedmemory${path}`;
    assert.deepEqual(await getJson(cuda('/status')), { status: 200, json: [] });
    const reg = await postJson(cuda('/region/c/register'), {
      raw_handle: { b64: 'AAAA' },
      device_id: 0,
      byte_size: 4,
    });
    assert.equal(reg.status, 400);
    assert.equal(
      reg.json.error,
      "failed to register CUDA shared memory region: 'c', GPUs not supported",
    );
    assert.equal((await postJson(cuda('/unregister'), '')).status, 200);
    assert.deepEqual((await grpc.call('CudaSharedMemoryStatus', {})).regions, {});
    await assert.rejects(
      grpc.call('CudaSharedMemoryRegister', { name: 'c', device_id: 0, byte_size: 4 }),
      rejection(status.INVALID_ARGUMENT, /GPUs not supported/),
    );
  });
});

void describe('system shared memory: off, restricted, and dropped at stop', () => {
  after(() => files.removeAll());

  void it('register and unregister are refused by default (--allow-client-shm=false), status answers none, as in Triton 26.04+', async () => {
    const ts = await startTestServer({
      modelRepositories: [MODEL_REPOSITORY],
      modelControlMode: 'explicit',
    });
    const grpc = grpcClient(ts.grpcTarget);
    try {
      const key = files.create('off', 16);
      const r = await postJson(`${ts.base}/v2/systemsharedmemory/region/o/register`, {
        key,
        offset: 0,
        byte_size: 16,
      });
      assert.equal(r.status, 403);
      const disabled =
        "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.";
      assert.equal(r.json.error, disabled);
      const un = await postJson(`${ts.base}/v2/systemsharedmemory/region/o/unregister`, '');
      assert.equal(un.status, 403);
      assert.equal(un.json.error, disabled);
      await assert.rejects(
        grpc.call('SystemSharedMemoryUnregister', {}),
        rejection(status.UNAVAILABLE, /Client shared memory is disabled/),
      );
      // Status still answers, with no regions, as Triton's does
      // (qa/L0_shared_memory test_client_shm_disabled_by_default).
      assert.deepEqual(await getJson(`${ts.base}/v2/systemsharedmemory/status`), {
        status: 200,
        json: [],
      });
      const named = await getJson(`${ts.base}/v2/systemsharedmemory/region/o/status`);
      assert.equal(named.status, 404);
      assert.equal(named.json.error, "Unable to find system shared memory region: 'o'");
      assert.deepEqual((await grpc.call('SystemSharedMemoryStatus', {})).regions, {});
      assert.deepEqual(await getJson(`${ts.base}/v2/cudasharedmemory/status`), {
        status: 200,
        json: [],
      });
    } finally {
      grpc.close();
      await ts.close();
    }
  });

  void it('the shared-memory category guards every management call', async () => {
    const ts = await startTestServer({
      modelRepositories: [MODEL_REPOSITORY],
      modelControlMode: 'explicit',
      allowClientShm: true,
      httpRestrictedApis: [{ categories: ['shared-memory'], header: 'admin', value: 'yes' }],
      grpcRestrictedProtocols: [
        { protocols: ['shared-memory'], header: 'triton-grpc-protocol-admin', value: 'yes' },
      ],
    });
    const grpc = grpcClient(ts.grpcTarget);
    try {
      const key = files.create('r', 16);
      const body = { key, offset: 0, byte_size: 16 };
      const url = `${ts.base}/v2/systemsharedmemory/region/r/register`;
      assert.equal((await postJson(url, body)).status, 403);
      assert.equal((await getJson(`${ts.base}/v2/cudasharedmemory/status`)).status, 403);
      assert.equal((await postJson(url, body, { admin: 'yes' })).status, 200);
      await assert.rejects(
        grpc.call('SystemSharedMemoryStatus', {}),
        rejection(status.UNAVAILABLE, /triton-grpc-protocol-admin/),
      );
      const st = await grpc.call(
        'SystemSharedMemoryStatus',
        {},
        {
          'triton-grpc-protocol-admin': 'yes',
        },
      );
      assert.deepEqual(Object.keys(st.regions), ['r']);
    } finally {
      grpc.close();
      await ts.close();
    }
  });

  void it('closes every registration fd when the server stops', async () => {
    const ts = await startTestServer({
      modelRepositories: [MODEL_REPOSITORY],
      modelControlMode: 'explicit',
      allowClientShm: true,
    });
    const key = files.create('stop', 32);
    const before = openShmFds().length;
    for (let i = 0; i < 3; i++) {
      const r = await postJson(`${ts.base}/v2/systemsharedmemory/region/s${i}/register`, {
        key,
        offset: 0,
        byte_size: 32,
      });
      assert.equal(r.status, 200);
    }
    assert.equal(openShmFds().length, before + 3);
    await ts.close();
    assert.equal(openShmFds().length, before);
    assert.equal(ts.server.sharedMemory?.size, 0);
  });
});
