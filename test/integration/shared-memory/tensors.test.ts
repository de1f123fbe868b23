// Inputs read from and outputs written to registered system shared-memory regions, against a real
// server with real ONNX Runtime sessions: HTTP JSON, HTTP binary, gRPC ModelInfer and
// ModelStreamInfer; the answers equal those of the same inputs sent inline. Plus the checks on use
// (sizes, bounds, a region its owner shrank), unregistering a region a queued request uses, and the
// fd count after many register/infer/unregister cycles.

import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { truncateSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import { grpcClient, type GrpcTestClient } from '../../helpers/grpc-client.js';
import { copyModel, FIXTURE_REPOSITORY, tempRepository } from '../../helpers/temp-repository.js';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { allQueued } from '../../helpers/wait-for.js';
import {
  copySlowModel,
  inferSlow,
  slowInput,
  SLOW_MAX_BATCH,
} from '../../helpers/slow-model-timing.js';
import { SLOW_WIDTH } from '../../../scripts/onnx/fixture-models.js';
import { fdCount, openShmFds, ShmFiles } from './shm-fixture.js';

const files = new ShmFiles();
const int32 = (xs: number[]) => Buffer.from(Int32Array.from(xs).buffer);
const A = Array.from({ length: 16 }, (_, i) => i * 3 - 7);
const B = Array.from({ length: 16 }, (_, i) => 100 - i * i);
const SUM = A.map((a, i) => a + (B[i] as number));
const DIFF = A.map((a, i) => a - (B[i] as number));
const ints = (b: Uint8Array) => [
  ...new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
];
const shmParams = (region: string, byteSize: number, offset?: number) => ({
  shared_memory_region: region,
  shared_memory_byte_size: byteSize,
  ...(offset !== undefined && { shared_memory_offset: offset }),
});

void describe('system shared memory: tensors', () => {
  let ts: TestServer;
  let grpc: GrpcTestClient;
  let inKey: string;
  let outKey: string;
  const url = (p: string) => `${ts.base}${p}`;
  const register = async (name: string, key: string, offset: number, byteSize: number) => {
    const r = await postJson(url(`/v2/systemsharedmemory/region/${name}/register`), {
      key,
      offset,
      byte_size: byteSize,
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
  };
  /**
   * slow_fp32 on `rows` rows read from the start of `region` (`bytes` long); OUTPUT0, as long,
   * written into the same region at `outputAt` when given (inline in the answer otherwise).
   */
  const inferFromRegion = (region: string, rows: number, bytes: number, outputAt?: number) =>
    postJson(url('/v2/models/slow_fp32/infer'), {
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'FP32',
          shape: [rows, SLOW_WIDTH],
          parameters: shmParams(region, bytes),
        },
      ],
      ...(outputAt !== undefined && {
        outputs: [{ name: 'OUTPUT0', parameters: shmParams(region, bytes, outputAt) }],
      }),
    });

  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copyModel(repo, 'identity_bytes');
    await copySlowModel(repo, 'slow_fp32');
    await cp(
      path.join(FIXTURE_REPOSITORY, 'sequence_accumulator'),
      path.join(repo, 'sequence_accumulator'),
      {
        recursive: true,
      },
    );
    ts = await startTestServer({ modelRepositories: [repo], allowClientShm: true });
    grpc = grpcClient(ts.grpcTarget);
    // The input region holds INPUT0 then INPUT1 after 32 bytes the registration skips.
    inKey = files.create('in', Buffer.concat([Buffer.alloc(32, 0xee), int32(A), int32(B)]));
    outKey = files.create('out', 256);
  });
  after(async () => {
    grpc.close();
    await ts.close();
    files.removeAll();
  });
  afterEach(async () => {
    await postJson(url('/v2/systemsharedmemory/unregister'), '');
    files.write(outKey, new Uint8Array(256));
  });

  void it('HTTP JSON: inputs from a region, outputs into one, as inline gives', async () => {
    await register('in', inKey, 32, 128);
    await register('out', outKey, 0, 256);
    const inline = await postJson(url('/v2/models/simple/infer'), {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: A },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: B },
      ],
    });
    assert.deepEqual(inline.json.outputs[0].data, SUM);
    const r = await postJson(url('/v2/models/simple/infer'), {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: shmParams('in', 64) },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], parameters: shmParams('in', 64, 64) },
      ],
      outputs: [
        { name: 'OUTPUT0', parameters: shmParams('out', 64) },
        { name: 'OUTPUT1', parameters: shmParams('out', 64, 128) },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.outputs, [
      {
        name: 'OUTPUT0',
        datatype: 'INT32',
        shape: [1, 16],
        parameters: { shared_memory_region: 'out', shared_memory_byte_size: 64 },
      },
      {
        name: 'OUTPUT1',
        datatype: 'INT32',
        shape: [1, 16],
        parameters: {
          shared_memory_region: 'out',
          shared_memory_byte_size: 64,
          shared_memory_offset: 128,
        },
      },
    ]);
    const out = files.read(outKey);
    assert.deepEqual(ints(out.subarray(0, 64)), inline.json.outputs[0].data);
    assert.deepEqual(ints(out.subarray(128, 192)), inline.json.outputs[1].data);
    assert.deepEqual(ints(out.subarray(64, 128)), new Array(16).fill(0), 'nothing between');
  });

  void it('HTTP binary: a region input beside a binary one, a region output beside a binary one', async () => {
    await register('in', inKey, 32, 128);
    await register('out', outKey, 0, 256);
    const header = Buffer.from(
      JSON.stringify({
        inputs: [
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: shmParams('in', 64) },
          {
            name: 'INPUT1',
            datatype: 'INT32',
            shape: [1, 16],
            parameters: { binary_data_size: 64 },
          },
        ],
        outputs: [
          { name: 'OUTPUT0', parameters: { binary_data: true } },
          { name: 'OUTPUT1', parameters: shmParams('out', 64, 64) },
        ],
      }),
    );
    const res = await fetch(url('/v2/models/simple/infer'), {
      method: 'POST',
      headers: {
        'content-type': 'application/octet-stream',
        'inference-header-content-length': String(header.byteLength),
      },
      body: Buffer.concat([header, int32(B)]),
    });
    assert.equal(res.status, 200);
    const body = Buffer.from(await res.arrayBuffer());
    const n = Number(res.headers.get('inference-header-content-length'));
    const json = JSON.parse(body.subarray(0, n).toString());
    assert.deepEqual(json.outputs[1], {
      name: 'OUTPUT1',
      datatype: 'INT32',
      shape: [1, 16],
      parameters: {
        shared_memory_region: 'out',
        shared_memory_byte_size: 64,
        shared_memory_offset: 64,
      },
    });
    assert.equal(json.outputs[0].parameters.binary_data_size, 64);
    assert.equal(body.byteLength, n + 64, 'only OUTPUT0 follows the header');
    assert.deepEqual(ints(body.subarray(n)), SUM);
    assert.deepEqual(ints(files.read(outKey).subarray(64, 128)), DIFF);
  });

  void it('gRPC ModelInfer: raw_input_contents only for inputs not in a region, none for outputs in one', async () => {
    await register('in', inKey, 32, 128);
    await register('out', outKey, 0, 256);
    const r = await grpc.call('ModelInfer', {
      model_name: 'simple',
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
        {
          name: 'INPUT1',
          datatype: 'INT32',
          shape: [1, 16],
          parameters: {
            shared_memory_region: { string_param: 'in' },
            shared_memory_byte_size: { int64_param: 64 },
            shared_memory_offset: { int64_param: 64 },
          },
        },
      ],
      outputs: [
        {
          name: 'OUTPUT0',
          parameters: {
            shared_memory_region: { string_param: 'out' },
            shared_memory_byte_size: { int64_param: 64 },
          },
        },
        { name: 'OUTPUT1' },
      ],
      raw_input_contents: [int32(A)],
    });
    assert.equal(r.raw_output_contents.length, 1);
    assert.deepEqual(ints(r.raw_output_contents[0]), DIFF);
    assert.equal(r.outputs[0].name, 'OUTPUT0');
    assert.equal(r.outputs[0].parameters.shared_memory_region.string_param, 'out');
    assert.deepEqual(ints(files.read(outKey).subarray(0, 64)), SUM);
  });

  void it('gRPC ModelStreamInfer: a region input and output', async () => {
    await register('in', inKey, 32, 128);
    await register('out', outKey, 0, 256);
    const stream = grpc.stub.ModelStreamInfer();
    const reply = new Promise<any>((resolve, reject) => {
      stream.once('data', resolve);
      stream.once('error', reject);
    });
    const region = (name: string, size: number, offset: number) => ({
      shared_memory_region: { string_param: name },
      shared_memory_byte_size: { int64_param: size },
      shared_memory_offset: { int64_param: offset },
    });
    stream.write({
      model_name: 'simple',
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: region('in', 64, 0) },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], parameters: region('in', 64, 64) },
      ],
      outputs: [{ name: 'OUTPUT1', parameters: region('out', 64, 192) }],
    });
    const msg = await reply;
    stream.end();
    assert.equal(msg.error_message, '');
    assert.equal(msg.infer_response.raw_output_contents.length, 0);
    assert.deepEqual(ints(files.read(outKey).subarray(192, 256)), DIFF);
  });

  void it('BYTES: the region holds the length-prefixed elements, in and out', async () => {
    const words = ['shared', '', 'mémoire'];
    const serialized = Buffer.concat(
      words.flatMap((w) => {
        const b = Buffer.from(w);
        const n = Buffer.alloc(4);
        n.writeUInt32LE(b.byteLength);
        return [n, b];
      }),
    );
    const key = files.create('bytes', serialized);
    await register('words', key, 0, serialized.byteLength);
    await register('out', outKey, 0, 256);
    const r = await postJson(url('/v2/models/identity_bytes/infer'), {
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'BYTES',
          shape: [1, 3],
          parameters: shmParams('words', serialized.byteLength),
        },
      ],
      outputs: [{ name: 'OUTPUT0', parameters: shmParams('out', 256) }],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.outputs[0].parameters.shared_memory_byte_size, serialized.byteLength);
    assert.deepEqual(files.read(outKey).subarray(0, serialized.byteLength), serialized);
  });

  void it('refuses sizes and bounds that do not fit, naming what was expected and what arrived', async () => {
    await register('in', inKey, 32, 128);
    await register('out', outKey, 0, 32);
    const infer = (input0: object, outputs?: object[]) =>
      postJson(url('/v2/models/simple/infer'), {
        inputs: [
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], ...input0 },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: B },
        ],
        ...(outputs !== undefined && { outputs }),
      });
    const cases: [object, number, string | RegExp, object[]?][] = [
      [
        { parameters: shmParams('in', 60) },
        400,
        "input byte size mismatch for input 'INPUT0' for model 'simple'. Expected 64, got 60 (parameters.shared_memory_byte_size)",
      ],
      [
        { parameters: { shared_memory_region: 'in' } },
        400,
        "'shared_memory_byte_size' must be specified along with 'shared_memory_region' parameter for tensor 'INPUT0'",
      ],
      [
        { parameters: { shared_memory_offset: 4, binary_data_size: 64 } },
        400,
        "'shared_memory_offset' can not be specified without 'shared_memory_region' parameter for tensor 'INPUT0'",
      ],
      [{ parameters: shmParams('nope', 64) }, 404, "Unable to find shared memory region: 'nope'"],
      [
        { parameters: shmParams('in', 64, 128) },
        400,
        "Invalid offset for shared memory region: 'in'",
      ],
      [
        { parameters: shmParams('in', 64, 96) },
        400,
        "Invalid offset + byte size for shared memory region: 'in'",
      ],
      [
        { data: A },
        400,
        "shared memory size specified with the request for output 'OUTPUT0' (32 bytes) should be at least 64 bytes to hold the results",
        [{ name: 'OUTPUT0', parameters: shmParams('out', 32) }],
      ],
    ];
    for (const [input0, code, message, outputs] of cases) {
      const r = await infer(input0, outputs);
      assert.equal(r.status, code, JSON.stringify(r.json));
      assert.equal(r.json.error, message);
    }
    await assert.rejects(
      grpc.call('ModelInfer', {
        model_name: 'simple',
        inputs: [
          {
            name: 'INPUT0',
            datatype: 'INT32',
            shape: [1, 16],
            parameters: {
              shared_memory_region: { string_param: 'in' },
              shared_memory_byte_size: { int64_param: 64 },
            },
            contents: { int_contents: A },
          },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], contents: { int_contents: B } },
        ],
      }),
      (e: any) =>
        e.code === status.INVALID_ARGUMENT &&
        e.details ===
          "unexpected 'content' provided when using shared memory for input tensor 'INPUT0' for model 'simple'",
    );
  });

  void it('offsets and byte sizes past 2^53 are answered as Triton answers them (uint64), not refused as malformed', async () => {
    // Triton's qa/L0_shared_memory test_infer_offset_out_of_bound and test_infer_integer_overflow
    // send these exact JSON integers; JSON.parse rounds them to doubles (2^64 here).
    await register('in', inKey, 32, 128);
    await register('out', outKey, 0, 64);
    const body = (offset: string, byteSize: string) =>
      `{"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,16],"data":${JSON.stringify(A)}},` +
      `{"name":"INPUT1","datatype":"INT32","shape":[1,16],"data":${JSON.stringify(B)}}],` +
      `"outputs":[{"name":"OUTPUT0","parameters":{"shared_memory_region":"out",` +
      `"shared_memory_offset":${offset},"shared_memory_byte_size":${byteSize}}}]}`;
    const cases: [string, string, string][] = [
      ['18446744073709551584', '64', "Invalid offset for shared memory region: 'out'"],
      [
        '32',
        '18446744073709551584',
        'Integer overflow detected: byte_size (18446744073709551616) + offset (32) exceeds ' +
          "maximum value (18446744073709551615) for region 'out'",
      ],
      ['9007199254740993', '64', "Invalid offset for shared memory region: 'out'"],
    ];
    for (const [offset, byteSize, message] of cases) {
      const r = await postJson(url('/v2/models/simple/infer'), body(offset, byteSize));
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.equal(r.json.error, message);
    }
    // Past uint64 is still malformed.
    const over = await postJson(url('/v2/models/simple/infer'), body('0', '1e20'));
    assert.equal(over.status, 400);
    assert.match(over.json.error, /invalid value for 'shared_memory_byte_size' parameter/);
  });

  void it('a region its owner shrank after registering is a clear error, and the server goes on', async () => {
    const key = files.create('shrink', Buffer.concat([int32(A), int32(B)]));
    await register('shrink', key, 0, 128);
    truncateSync(files.file(key), 100);
    const r = await postJson(url('/v2/models/simple/infer'), {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: shmParams('shrink', 64) },
        {
          name: 'INPUT1',
          datatype: 'INT32',
          shape: [1, 16],
          parameters: shmParams('shrink', 64, 64),
        },
      ],
    });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.match(
      r.json.error,
      /shared memory region 'shrink' .* is smaller than when it was registered: expected at least 128 bytes/,
    );
    const ok = await postJson(url('/v2/models/simple/infer'), {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: A },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: B },
      ],
    });
    assert.deepEqual(ok.json.outputs[0].data, SUM);
  });

  void it('an output region its owner shrinks while the request is queued fails that request clearly, and is not grown back', async () => {
    // A lone request of >= 1 MiB: its worker would write the output into the region itself
    // (scheduler/region-writes.ts). It waits behind a blocker, is truncated meanwhile, and must fail
    // with SHM_TRUNCATED rather than write a short region or grow the file back.
    const rows = 256;
    const input = slowInput(rows, 3);
    const key = files.create('race', input.byteLength * 2);
    files.write(key, Buffer.concat([input, Buffer.alloc(input.byteLength)]));
    await register('race', key, 0, input.byteLength * 2);
    const blocker = inferSlow(ts.base, 'slow_fp32', SLOW_MAX_BATCH / 32);
    await new Promise((r) => setTimeout(r, 300));
    const queued = inferFromRegion('race', rows, input.byteLength, input.byteLength);
    await allQueued(ts.metricsBase, 'slow_fp32', 2);
    const shrunk = input.byteLength + 100;
    truncateSync(files.file(key), shrunk);
    const answer = await queued;
    assert.equal((await blocker).status, 200);
    assert.equal(answer.status, 400, JSON.stringify(answer.json).slice(0, 300));
    assert.match(
      answer.json.error,
      new RegExp(
        `shared memory region 'race' .* is smaller than when it was registered: expected at ` +
          `least ${input.byteLength * 2} bytes`,
      ),
    );
    assert.equal(files.read(key).byteLength, shrunk, 'the region is not grown back by a write');
    // Restored by its owner, the same registration serves the next request in full.
    files.write(key, Buffer.concat([input, Buffer.alloc(input.byteLength)]));
    const again = await inferFromRegion('race', rows, input.byteLength, input.byteLength);
    assert.equal(again.status, 200, JSON.stringify(again.json).slice(0, 300));
    assert.equal(again.json.outputs[0].parameters.shared_memory_byte_size, input.byteLength);
    const written = files.read(key).subarray(input.byteLength);
    assert.notDeepEqual(written, Buffer.alloc(input.byteLength), 'the output was written');
  });

  void it('unregistering a region a queued request uses waits for it: listed until answered, then gone, as in Triton', async () => {
    const rows = 1;
    const input = slowInput(rows, 5);
    const key = files.create('slow', input);
    await register('slow', key, 0, input.byteLength);
    const blocker = inferSlow(ts.base, 'slow_fp32', SLOW_MAX_BATCH / 32, { seed: 1 });
    // The blocker must reach the instance first; allQueued below asserts that it did.
    await new Promise((r) => setTimeout(r, 300));
    const queued = inferFromRegion('slow', rows, input.byteLength);
    await allQueued(ts.metricsBase, 'slow_fp32', 2);
    const fdsBefore = openShmFds().length;
    const un = await postJson(url('/v2/systemsharedmemory/region/slow/unregister'), '');
    assert.equal(un.status, 200);
    // Unregister-all too: no error for a region in use (Triton's test_unregister_shm_during_*).
    assert.equal((await postJson(url('/v2/systemsharedmemory/unregister'), '')).status, 200);
    const listed = await fetch(url('/v2/systemsharedmemory/status'));
    assert.deepEqual(
      await listed.json(),
      [{ name: 'slow', key, offset: 0, byte_size: input.byteLength }],
      'still registered while the queued request holds it',
    );
    const again = await postJson(url('/v2/systemsharedmemory/region/slow/register'), {
      key,
      offset: 0,
      byte_size: 4,
    });
    assert.equal(again.json.error, "shared memory region 'slow' already in manager");
    assert.equal(openShmFds().length, fdsBefore, 'the fd stays open for the queued request');
    const answer = await queued;
    assert.equal((await blocker).status, 200);
    assert.equal(answer.status, 200, JSON.stringify(answer.json).slice(0, 200));
    const st = await fetch(url('/v2/systemsharedmemory/region/slow/status'));
    assert.equal(st.status, 404, 'gone once the request that held it is answered');
    assert.deepEqual(await (await fetch(url('/v2/systemsharedmemory/status'))).json(), []);
    const inline = await postJson(url('/v2/models/slow_fp32/infer'), {
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'FP32',
          shape: [rows, SLOW_WIDTH],
          data: [...new Float32Array(input.buffer, input.byteOffset, input.byteLength / 4)],
        },
      ],
    });
    assert.deepEqual(answer.json.outputs[0].data, inline.json.outputs[0].data);
    assert.equal(openShmFds().length, fdsBefore - 1, 'closed once answered');
  });

  void it('a sequence model reads its inputs from a region, step by step', async () => {
    const key = files.create('seq', int32([5, 7]));
    await register('seq', key, 0, 8);
    const step = (offset: number, params: object) =>
      postJson(url('/v2/models/sequence_accumulator/infer'), {
        parameters: { sequence_id: 4242, ...params },
        inputs: [
          {
            name: 'INPUT',
            datatype: 'INT32',
            shape: [1, 1],
            parameters: shmParams('seq', 4, offset),
          },
        ],
        outputs: [{ name: 'OUTPUT' }],
      });
    const first = await step(0, { sequence_start: true });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.deepEqual(first.json.outputs[0].data, [5]);
    const second = await step(4, { sequence_end: true });
    assert.deepEqual(second.json.outputs[0].data, [12]);
  });

  void it('a sequence step whose region shrank fails alone and leaves its state as it was', async () => {
    const key = files.create('seqshrink', int32([5, 7]));
    await register('seqshrink', key, 0, 8);
    const step = (input: object, params: object) =>
      postJson(url('/v2/models/sequence_accumulator/infer'), {
        parameters: { sequence_id: 4343, ...params },
        inputs: [{ name: 'INPUT', datatype: 'INT32', shape: [1, 1], ...input }],
        outputs: [{ name: 'OUTPUT' }],
      });
    const first = await step({ parameters: shmParams('seqshrink', 4) }, { sequence_start: true });
    assert.deepEqual(first.json.outputs[0].data, [5], JSON.stringify(first.json));
    truncateSync(files.file(key), 2);
    const failed = await step({ parameters: shmParams('seqshrink', 4, 4) }, {});
    assert.equal(failed.status, 400, JSON.stringify(failed.json));
    assert.match(failed.json.error, /shared memory region 'seqshrink' .* is smaller than/);
    const last = await step({ data: [7] }, { sequence_end: true });
    assert.equal(last.status, 200, JSON.stringify(last.json));
    assert.deepEqual(last.json.outputs[0].data, [12], 'the failed step did not add to the state');
  });

  void it('200 register/infer/unregister cycles leave the fd count where it started', async () => {
    const before = fdCount();
    for (let i = 0; i < 200; i++) {
      await register('cycle', inKey, 32, 128);
      const r = await postJson(url('/v2/models/simple/infer'), {
        inputs: [
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: shmParams('cycle', 64) },
          {
            name: 'INPUT1',
            datatype: 'INT32',
            shape: [1, 16],
            parameters: shmParams('cycle', 64, 64),
          },
        ],
      });
      assert.equal(r.status, 200);
      await postJson(url('/v2/systemsharedmemory/region/cycle/unregister'), '');
    }
    assert.deepEqual(openShmFds(), []);
    // Sockets of the test's own HTTP client may come and go: allow the few a keep-alive pool holds.
    assert.ok(fdCount() <= before + 4, `fds: ${before} before, ${fdCount()} after`);
  });
});
