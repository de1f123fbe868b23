// The TypeScript client's system shared-memory helpers against a real server (real ONNX Runtime
// session, real /dev/shm files the test creates and removes), over each transport that has them:
// HTTP JSON, HTTP binary, gRPC and the msgpack WebSocket. A region is created and written by the
// client, registered, named on inputs and outputs, read back, unregistered and destroyed; mixed
// requests (one tensor inline, one in a region) and a bad region's error are checked on each.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  InferenceClient,
  InferenceClientError,
  output,
  regionInput,
  regionOutput,
  SystemSharedMemoryRegion,
  tensor,
  type ClientProtocol,
} from '../../../src/client/inference-client.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const A = Int32Array.from({ length: 16 }, (_, i) => i * 3 - 7);
const B = Int32Array.from({ length: 16 }, (_, i) => 100 - i * i);
const SUM = A.map((a, i) => a + (B[i] as number));
const DIFF = A.map((a, i) => a - (B[i] as number));
const BYTES = 64; // one [1, 16] INT32 tensor

/** The code each transport gives a region that is not registered. */
const NOT_FOUND: Record<string, string> = {
  'http-json': 'HTTP_404',
  'http-binary': 'HTTP_404',
  grpc: 'GRPC_NOT_FOUND',
  ws: 'SHM_NOT_FOUND',
};

const TRANSPORTS = ['http-json', 'http-binary', 'grpc', 'ws'] as const;

void describe('client: system shared memory', () => {
  let ts: TestServer;

  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    ts = await startTestServer({ modelRepositories: [repo], allowClientShm: true });
  });
  after(() => ts.close());

  for (const protocol of TRANSPORTS) {
    void it(`${protocol}: create, write, register, infer in regions, read back, unregister, destroy`, async () => {
      const client = new InferenceClient({
        url: protocol === 'grpc' ? ts.grpcTarget : ts.base,
        protocol: protocol as ClientProtocol,
        timeoutMs: 20_000,
      });
      const key = `/infernode-client-test-${process.pid}-${protocol}`;
      // Inputs at 0 and 64, outputs at 128 and 192.
      const region = SystemSharedMemoryRegion.create(key, 4 * BYTES);
      try {
        assert.ok(existsSync(region.file));
        assert.equal(region.write(tensor('INPUT0', 'INT32', [1, 16], A), 0), BYTES);
        assert.equal(region.write(B, BYTES), BYTES);
        await client.registerSystemSharedMemory('io', region.key, region.byteSize);
        assert.deepEqual(await client.systemSharedMemoryStatus(), [
          { name: 'io', key, offset: 0, byteSize: 4 * BYTES },
        ]);
        assert.deepEqual(await client.systemSharedMemoryStatus('io'), [
          { name: 'io', key, offset: 0, byteSize: 4 * BYTES },
        ]);

        const r = await client.infer(
          'simple',
          [
            regionInput('INPUT0', 'INT32', [1, 16], { region: 'io', byteSize: BYTES }),
            regionInput('INPUT1', 'INT32', [1, 16], { region: 'io', byteSize: BYTES, offset: 64 }),
          ],
          {
            outputRegions: {
              OUTPUT0: { region: 'io', byteSize: BYTES, offset: 128 },
              OUTPUT1: { region: 'io', byteSize: BYTES, offset: 192 },
            },
          },
        );
        assert.deepEqual(r.outputs, []);
        const out0 = regionOutput(r, 'OUTPUT0');
        assert.deepEqual(
          { ...out0 },
          {
            name: 'OUTPUT0',
            datatype: 'INT32',
            shape: [1, 16],
            region: 'io',
            byteSize: BYTES,
            offset: 128,
          },
        );
        assert.deepEqual(region.readTensor(out0).data, SUM);
        assert.deepEqual(region.readTensor(regionOutput(r, 'OUTPUT1')).data, DIFF);

        // Mixed: INPUT0 inline, INPUT1 in the region; OUTPUT0 in the response, OUTPUT1 in the
        // region (over gRPC, the raw contents follow only the tensors not in a region).
        region.write(new Uint8Array(BYTES), 192);
        const mixed = await client.infer(
          'simple',
          [
            tensor('INPUT0', 'INT32', [1, 16], A),
            regionInput('INPUT1', 'INT32', [1, 16], { region: 'io', byteSize: BYTES, offset: 64 }),
          ],
          {
            outputs: ['OUTPUT0'],
            outputRegions: { OUTPUT1: { region: 'io', byteSize: BYTES, offset: 192 } },
          },
        );
        assert.deepEqual(output(mixed, 'OUTPUT0').data, SUM);
        assert.deepEqual(
          mixed.regionOutputs.map((o) => o.name),
          ['OUTPUT1'],
        );
        assert.deepEqual(region.readTensor(regionOutput(mixed, 'OUTPUT1')).data, DIFF);

        // A region that is not registered: the server's error, under the transport's code.
        await assert.rejects(
          client.infer('simple', [
            regionInput('INPUT0', 'INT32', [1, 16], { region: 'nope', byteSize: BYTES }),
            tensor('INPUT1', 'INT32', [1, 16], B),
          ]),
          (e: unknown) => {
            assert.ok(e instanceof InferenceClientError);
            assert.equal(e.code, NOT_FOUND[protocol], e.message);
            assert.match(e.message, /nope/);
            return true;
          },
        );

        await client.unregisterSystemSharedMemory('io');
        assert.deepEqual(await client.systemSharedMemoryStatus(), []);
      } finally {
        await client.unregisterSystemSharedMemory().catch(() => undefined);
        await client.close();
        region.destroy();
      }
      assert.equal(existsSync(`/dev/shm${key}`), false);
    });
  }

  void it('ws-flatbuffers: refuses shared-memory calls and tensors before sending', async () => {
    const client = new InferenceClient({ url: ts.base, protocol: 'ws-flatbuffers' });
    try {
      await assert.rejects(client.systemSharedMemoryStatus(), { code: 'OPTIONS' });
      await assert.rejects(
        client.infer('simple', [
          regionInput('INPUT0', 'INT32', [1, 16], { region: 'r', byteSize: 64 }),
        ]),
        { code: 'OPTIONS' },
      );
    } finally {
      await client.close();
    }
  });

  void it('region helpers refuse keys that are paths and accesses past the end', () => {
    for (const key of ['/a/b', '..', '/', '']) {
      assert.throws(() => SystemSharedMemoryRegion.create(key, 8), { code: 'OPTIONS' });
    }
    const region = SystemSharedMemoryRegion.create(`/infernode-client-test-${process.pid}-x`, 8);
    try {
      assert.throws(() => region.write(new Uint8Array(4), 6), { code: 'OPTIONS' });
      assert.throws(() => region.read(0, 9), { code: 'OPTIONS' });
      region.write(Uint8Array.of(1, 2, 3), 5);
      assert.deepEqual([...region.read(4, 4)], [0, 1, 2, 3]);
    } finally {
      region.destroy();
    }
    assert.throws(() => region.read(0, 1), { code: 'OPTIONS' });
  });
});
