// The repository RPCs through a real grpc-js server over the fake data plane, with a client built
// from Triton's protos: what RepositoryIndex, RepositoryModelLoad and RepositoryModelUnload hand the
// data plane, what they answer, and the status of each refusal.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { fail } from '../../../src/errors.js';
import { memoryBudget } from '../../../src/memory/client-budget.js';
import { startGrpcServer, type GrpcFrontEnd } from '../../../src/grpc/grpc-server.js';
import { grpcClient, type GrpcTestClient } from '../../helpers/grpc-client.js';
import { FakeDataPlane } from '../http/fake-data-plane.js';

const CONFIG = '{"name":"echo"}';

function rejection(code: status, details: string | RegExp): (e: any) => boolean {
  return (e) => {
    assert.equal(e.code, code, `expected ${status[code]}, got ${status[e.code]}: ${e.details}`);
    if (typeof details === 'string') assert.equal(e.details, details);
    else assert.match(e.details, details);
    return true;
  };
}

void describe('gRPC repository RPCs over the fake data plane', () => {
  let plane: FakeDataPlane;
  let server: GrpcFrontEnd;
  let c: GrpcTestClient;
  before(async () => {
    plane = new FakeDataPlane();
    // The server keeps this plane; each test resets what it records.
    server = await startGrpcServer(plane, {
      address: '127.0.0.1',
      port: 0,
      compressionLevel: 'none',
      keepaliveTimeMs: 7_200_000,
      keepaliveTimeoutMs: 20_000,
      maxReceiveBytes: 1 << 20,
      restrictions: [],
      budget: memoryBudget(0),
      maxConcurrentStreams: 128,
    });
    c = grpcClient(`127.0.0.1:${server.port}`);
  });
  beforeEach(() => {
    plane.loadCalls.length = 0;
    plane.unloadCalls.length = 0;
    plane.extraIndexRows.length = 0;
    plane.controlFailure = undefined;
  });
  after(() => {
    c.close();
    server.close();
  });

  void it('RepositoryIndex: every row, or the READY ones; absent fields are empty strings', async () => {
    plane.extraIndexRows.push({ name: 'never_loaded' });
    const all = await c.call('RepositoryIndex', {});
    assert.deepEqual(all.models, [
      { name: 'echo', version: '1', state: 'READY', reason: '' },
      { name: 'pair', version: '1', state: 'READY', reason: '' },
      { name: 'broken', version: '', state: 'UNAVAILABLE', reason: 'config.pbtxt: no such file' },
      { name: 'never_loaded', version: '', state: '', reason: '' },
    ]);
    const ready = await c.call('RepositoryIndex', { ready: true });
    assert.deepEqual(
      ready.models.map((m: { name: string }) => m.name),
      ['echo', 'pair'],
    );
  });

  void it('RepositoryModelLoad: config as string_param, files as bytes_param', async () => {
    const reply = await c.call('RepositoryModelLoad', {
      model_name: 'echo',
      parameters: {
        config: { string_param: CONFIG },
        'file:1/model.onnx': { bytes_param: Buffer.of(1, 2, 3) },
      },
    });
    assert.deepEqual(reply, {});
    assert.equal(plane.loadCalls.length, 1);
    const [call] = plane.loadCalls;
    assert.equal(call?.name, 'echo');
    assert.equal(call?.request.config, CONFIG);
    assert.deepEqual([...(call?.request.files.get('1/model.onnx') ?? [])], [1, 2, 3]);
  });

  void it('RepositoryModelLoad: wrong kinds, unknown keys and bad names are INVALID_ARGUMENT', async () => {
    await assert.rejects(
      c.call('RepositoryModelLoad', {
        model_name: 'echo',
        parameters: { config: { bytes_param: Buffer.from(CONFIG) } },
      }),
      rejection(
        status.INVALID_ARGUMENT,
        "load parameter 'config' must be a string_param, got a bytes_param",
      ),
    );
    await assert.rejects(
      c.call('RepositoryModelLoad', {
        model_name: 'echo',
        parameters: { version: { int64_param: 2 } },
      }),
      rejection(status.INVALID_ARGUMENT, /^unrecognized load parameter 'version'/),
    );
    await assert.rejects(
      c.call('RepositoryModelLoad', { model_name: '../etc' }),
      rejection(status.INVALID_ARGUMENT, /^invalid model name "..\/etc"/),
    );
    assert.equal(plane.loadCalls.length, 0);
  });

  void it('RepositoryModelUnload: unload_dependents as bool_param; names are only looked up', async () => {
    assert.deepEqual(await c.call('RepositoryModelUnload', { model_name: 'echo' }), {});
    await c.call('RepositoryModelUnload', {
      model_name: '../etc',
      parameters: { unload_dependents: { bool_param: true } },
    });
    assert.deepEqual(plane.unloadCalls, [
      { name: 'echo', unloadDependents: false },
      { name: '../etc', unloadDependents: true },
    ]);
    await assert.rejects(
      c.call('RepositoryModelUnload', {
        model_name: 'echo',
        parameters: { unload_dependents: { string_param: 'true' } },
      }),
      rejection(
        status.INVALID_ARGUMENT,
        "unload parameter 'unload_dependents' must be a bool_param, got a string_param",
      ),
    );
  });

  void it('a repository_name is UNIMPLEMENTED on every repository RPC, as in Triton', async () => {
    for (const rpc of ['RepositoryIndex', 'RepositoryModelLoad', 'RepositoryModelUnload']) {
      await assert.rejects(
        c.call(rpc, { repository_name: 'r', model_name: 'echo' }),
        rejection(status.UNIMPLEMENTED, "'repository_name' specification is not supported"),
      );
    }
  });

  void it("the data plane's refusal keeps its message, with the catalog's status", async () => {
    plane.controlFailure = fail(
      'MODEL_CONTROL_DISABLED',
      'explicit model load / unload is not allowed if polling is enabled',
    );
    for (const rpc of ['RepositoryModelLoad', 'RepositoryModelUnload']) {
      await assert.rejects(
        c.call(rpc, { model_name: 'echo' }),
        rejection(
          status.UNAVAILABLE,
          'explicit model load / unload is not allowed if polling is enabled',
        ),
      );
    }
  });
});
