// The HTTP conformance cases over gRPC (inference.GRPCInferenceService), with a client generated
// from Triton's protos: health and metadata, every datatype in both tensor spellings, the outputs
// filter, bad inputs with their status codes and messages, queue overflow, and the unimplemented RPCs.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import {
  InferenceClient,
  InferenceClientError,
  output,
  tensor,
} from '../../src/client/inference-client.js';
import { DATATYPE_CASES } from '../helpers/datatype-cases.js';
import { grpcClient, type GrpcTestClient } from '../helpers/grpc-client.js';
import { SLOW_WIDTH } from '../../scripts/onnx/fixture-models.js';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  slowInput,
} from '../helpers/slow-model-timing.js';
import { FIXTURE_REPOSITORY, copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { pendingRequests, waitFor } from '../helpers/wait-for.js';

/** Typed `contents` field per datatype, and the typed array its raw bytes are (the test's own). */
const TYPED: Record<string, { field: string; raw: (v: unknown[]) => ArrayBufferView } | undefined> =
  {
    BOOL: {
      field: 'bool_contents',
      raw: (v) => Uint8Array.from(v as boolean[], (b) => (b ? 1 : 0)),
    },
    UINT8: { field: 'uint_contents', raw: (v) => Uint8Array.from(v as number[]) },
    UINT16: { field: 'uint_contents', raw: (v) => Uint16Array.from(v as number[]) },
    UINT32: { field: 'uint_contents', raw: (v) => Uint32Array.from(v as number[]) },
    UINT64: { field: 'uint64_contents', raw: (v) => BigUint64Array.from(v as number[], BigInt) },
    INT8: { field: 'int_contents', raw: (v) => Int8Array.from(v as number[]) },
    INT16: { field: 'int_contents', raw: (v) => Int16Array.from(v as number[]) },
    INT32: { field: 'int_contents', raw: (v) => Int32Array.from(v as number[]) },
    INT64: { field: 'int64_contents', raw: (v) => BigInt64Array.from(v as number[], BigInt) },
    FP16: undefined,
    FP32: { field: 'fp32_contents', raw: (v) => Float32Array.from(v as number[]) },
    FP64: { field: 'fp64_contents', raw: (v) => Float64Array.from(v as number[]) },
  };

const bytesOf = (v: ArrayBufferView): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

function rejection(code: status, message: RegExp): (e: any) => boolean {
  return (e) => {
    assert.equal(
      e.code,
      code,
      `expected status ${status[code]}, got ${status[e.code]}: ${e.details}`,
    );
    assert.match(e.details, message);
    return true;
  };
}

void describe('gRPC: every datatype through identity models', () => {
  let t: TestServer;
  let c: GrpcTestClient;
  before(async () => {
    t = await startTestServer({ modelRepositories: [FIXTURE_REPOSITORY], strictReadiness: false });
    c = grpcClient(t.grpcTarget);
  });
  after(async () => {
    c.close();
    await t.close();
  });

  for (const k of DATATYPE_CASES) {
    void it(`${k.datatype} in raw_input_contents, bit for bit`, async () => {
      const r = await c.call('ModelInfer', {
        model_name: k.model,
        id: `raw-${k.datatype}`,
        inputs: [{ name: 'INPUT0', datatype: k.datatype, shape: [1, 4] }],
        raw_input_contents: [k.bytes],
      });
      assert.equal(r.id, `raw-${k.datatype}`);
      assert.equal(r.model_name, k.model);
      assert.equal(r.outputs[0].datatype, k.datatype);
      assert.deepEqual(r.outputs[0].shape, ['1', '4']);
      assert.deepEqual(Buffer.from(r.raw_output_contents[0]), k.bytes);
    });

    const typed = TYPED[k.datatype];
    if (typed === undefined) {
      void it(`${k.datatype} in typed contents is refused: it has no contents field`, async () => {
        await assert.rejects(
          c.call('ModelInfer', {
            model_name: k.model,
            inputs: [{ name: 'INPUT0', datatype: k.datatype, shape: [1, 4] }],
          }),
          rejection(status.INVALID_ARGUMENT, /FP16 has no typed contents field/),
        );
      });
      continue;
    }
    void it(`${k.datatype} in typed contents`, async () => {
      const r = await c.call('ModelInfer', {
        model_name: k.model,
        inputs: [
          {
            name: 'INPUT0',
            datatype: k.datatype,
            shape: [1, 4],
            contents: { [typed.field]: k.json },
          },
        ],
      });
      assert.deepEqual(Buffer.from(r.raw_output_contents[0]), bytesOf(typed.raw(k.json)));
    });
  }

  void it('BYTES in both spellings, including non-ASCII and empty elements', async () => {
    const strings = ['a', '', 'ünïcödé', '😀'.repeat(100)];
    const raw = Buffer.concat(
      strings.map((s) => {
        const b = Buffer.from(s);
        const len = Buffer.alloc(4);
        len.writeUInt32LE(b.length);
        return Buffer.concat([len, b]);
      }),
    );
    const input = { name: 'INPUT0', datatype: 'BYTES', shape: [1, 4] };
    const typed = await c.call('ModelInfer', {
      model_name: 'identity_bytes',
      inputs: [{ ...input, contents: { bytes_contents: strings.map((s) => Buffer.from(s)) } }],
    });
    assert.deepEqual(Buffer.from(typed.raw_output_contents[0]), raw);
    const rawReply = await c.call('ModelInfer', {
      model_name: 'identity_bytes',
      inputs: [input],
      raw_input_contents: [raw],
    });
    assert.deepEqual(Buffer.from(rawReply.raw_output_contents[0]), raw);
  });

  void it('an out-of-range narrow integer is refused with INVALID_ARGUMENT', async () => {
    await assert.rejects(
      c.call('ModelInfer', {
        model_name: 'identity_int8',
        inputs: [
          {
            name: 'INPUT0',
            datatype: 'INT8',
            shape: [1, 2],
            contents: { int_contents: [1, 300] },
          },
        ],
      }),
      rejection(status.INVALID_ARGUMENT, /element 1 is 300, outside the INT8 range -128\.\.127/),
    );
  });

  void it('contents in the wrong field for the datatype are refused', async () => {
    await assert.rejects(
      c.call('ModelInfer', {
        model_name: 'identity_fp32',
        inputs: [
          { name: 'INPUT0', datatype: 'FP32', shape: [1, 1], contents: { int_contents: [1] } },
        ],
      }),
      rejection(status.INVALID_ARGUMENT, /expected FP32 data in contents\.fp32_contents/),
    );
  });
});

void describe('gRPC: metadata, health, errors and the queue', () => {
  let repo: string;
  let t: TestServer;
  let c: GrpcTestClient;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copySlowModel(repo, 'slow_cap', 'default_queue_policy { max_queue_size: 2 }');
    t = await startTestServer({ modelRepositories: [repo] });
    c = grpcClient(t.grpcTarget);
  });
  after(async () => {
    c.close();
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('answers health, server metadata and grpc.health.v1', async () => {
    assert.deepEqual(await c.call('ServerLive', {}), { live: true });
    assert.deepEqual(await c.call('ServerReady', {}), { ready: true });
    assert.deepEqual(await c.call('ModelReady', { name: 'simple', version: '' }), { ready: true });
    const meta = await c.call('ServerMetadata', {});
    const http = (await (await fetch(`${t.base}/v2`)).json()) as any;
    assert.deepEqual(meta, http);
    assert.deepEqual(await c.check(), { status: 'SERVING' });
    assert.deepEqual(await c.check('inference.GRPCInferenceService'), { status: 'SERVING' });
    await assert.rejects(
      c.check('no.such.Service'),
      rejection(status.NOT_FOUND, /unknown service/),
    );
  });

  void it('model metadata, config, statistics and the repository index match HTTP', async () => {
    const meta = await c.call('ModelMetadata', { name: 'simple', version: '' });
    const http = (await (await fetch(`${t.base}/v2/models/simple`)).json()) as any;
    assert.equal(meta.name, http.name);
    assert.deepEqual(meta.versions, http.versions);
    assert.equal(meta.platform, http.platform);
    assert.deepEqual(
      meta.inputs.map((i: any) => ({ ...i, shape: i.shape.map(Number) })),
      http.inputs,
    );
    const config = await c.call('ModelConfig', { name: 'simple', version: '1' });
    assert.equal(config.config.name, 'simple');
    assert.equal(config.config.max_batch_size, 8);
    assert.equal(config.config.input[0].data_type, 'TYPE_INT32');
    const stats = await c.call('ModelStatistics', { name: 'simple', version: '' });
    assert.equal(stats.model_stats[0].name, 'simple');
    const index = await c.call('RepositoryIndex', { ready: true });
    assert.deepEqual(
      index.models.map((m: any) => m.name),
      ['simple', 'slow_cap'],
    );
    assert.equal(index.models[0].state, 'READY');
  });

  void it('runs simple with the outputs filter, echoing the request id', async () => {
    const a = Int32Array.from({ length: 16 }, (_, i) => i);
    const b = Int32Array.from({ length: 16 }, () => 1);
    const r = await c.call('ModelInfer', {
      model_name: 'simple',
      id: 'req-7',
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], contents: { int_contents: [...a] } },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], contents: { int_contents: [...b] } },
      ],
      outputs: [{ name: 'OUTPUT1' }],
    });
    assert.equal(r.id, 'req-7');
    assert.equal(r.model_version, '1');
    assert.deepEqual(
      r.outputs.map((o: any) => o.name),
      ['OUTPUT1'],
    );
    const out = Buffer.from(r.raw_output_contents[0]);
    assert.deepEqual(
      [...new Int32Array(out.buffer, out.byteOffset, 16)],
      [...a].map((x) => x - 1),
    );
  });

  void it("InferenceClient's grpc transport runs simple and reports status codes", async () => {
    const client = new InferenceClient({ url: t.grpcTarget, protocol: 'grpc', timeoutMs: 10_000 });
    try {
      const a = Int32Array.from({ length: 16 }, (_, i) => i);
      const r = await client.infer(
        'simple',
        [tensor('INPUT0', 'INT32', [1, 16], a), tensor('INPUT1', 'INT32', [1, 16], a)],
        { outputs: ['OUTPUT0'] },
      );
      assert.equal(r.modelVersion, '1');
      assert.deepEqual(output(r, 'OUTPUT0').shape, [1, 16]);
      assert.deepEqual(
        [...(output(r, 'OUTPUT0').data as Int32Array)],
        [...a].map((x) => 2 * x),
      );
      await assert.rejects(
        client.infer('nope', []),
        (e: unknown) => e instanceof InferenceClientError && e.code === 'GRPC_NOT_FOUND',
      );
    } finally {
      await client.close();
    }
  });

  void it('bad requests get the catalog status code and message', async () => {
    const input = (over: object) => ({
      name: 'INPUT0',
      datatype: 'INT32',
      shape: [1, 16],
      contents: { int_contents: new Array(16).fill(0) },
      ...over,
    });
    const second = input({ name: 'INPUT1' });
    await assert.rejects(
      c.call('ModelInfer', { model_name: 'nope', inputs: [input({})] }),
      rejection(status.NOT_FOUND, /nope/),
    );
    await assert.rejects(
      c.call('ModelMetadata', { name: 'simple', version: '9' }),
      rejection(status.NOT_FOUND, /simple/),
    );
    await assert.rejects(
      c.call('ModelInfer', { model_name: 'simple', inputs: [input({ datatype: 'FP32' }), second] }),
      rejection(status.INVALID_ARGUMENT, /INPUT0.*FP32|FP32.*INPUT0/),
    );
    await assert.rejects(
      c.call('ModelInfer', {
        model_name: 'simple',
        inputs: [
          input({ shape: [1, 15], contents: { int_contents: new Array(15).fill(0) } }),
          second,
        ],
      }),
      rejection(status.INVALID_ARGUMENT, /shape/),
    );
    await assert.rejects(
      c.call('ModelInfer', { model_name: 'simple', inputs: [input({})] }),
      rejection(status.INVALID_ARGUMENT, /INPUT1/),
    );
    await assert.rejects(
      c.call('ModelInfer', {
        model_name: 'simple',
        inputs: [input({}), second],
        outputs: [{ name: 'OUTPUT9' }],
      }),
      rejection(status.INVALID_ARGUMENT, /OUTPUT9/),
    );
    await assert.rejects(
      c.call('ModelInfer', {
        model_name: 'simple',
        inputs: [input({}), second],
        raw_input_contents: [Buffer.alloc(64)],
      }),
      rejection(status.INVALID_ARGUMENT, /raw_input_contents has 1 entries for 2 inputs/),
    );
  });

  void it('refuses shared memory (--allow-client-shm=false) and model control', async () => {
    // As in Triton: registering is refused, while status answers with no regions.
    await assert.rejects(
      c.call('SystemSharedMemoryRegister', { name: 'r', key: '/r', offset: 0, byte_size: 64 }),
      rejection(status.UNAVAILABLE, /Client shared memory is disabled/),
    );
    const shm = await c.call('SystemSharedMemoryStatus', {});
    assert.deepEqual(Object.keys(shm.regions ?? {}), []);
    await assert.rejects(
      c.call('CudaSharedMemoryRegister', {}),
      rejection(status.UNAVAILABLE, /--allow-client-shm=true/),
    );
    await assert.rejects(
      c.call('RepositoryModelLoad', { model_name: 'simple' }),
      rejection(status.UNAVAILABLE, /explicit model load \/ unload is not allowed/),
    );
  });

  void it('a full queue answers RESOURCE_EXHAUSTED at once', async () => {
    // Sized from a timing of this machine, so the queue fills while the busy request still runs.
    const timing = await measureSlowModel(t, 'slow_cap');
    const busy = inferSlow(t.base, 'slow_cap', timing.rowsFor(1000));
    const v = t.server.registry.resolve('slow_cap', undefined);
    await waitFor(
      () => v.scheduler.inflightCount(),
      (n) => n === 1,
    );
    const one = () =>
      c
        .call('ModelInfer', {
          model_name: 'slow_cap',
          inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, SLOW_WIDTH] }],
          raw_input_contents: [slowInput(1)],
        })
        .then(
          () => 'ok',
          (e: any) => e,
        );
    const singles = Array.from({ length: 5 }, one);
    assert.equal(
      await waitFor(
        () => pendingRequests(t.metricsBase, 'slow_cap'),
        (n) => n === 2,
      ),
      2,
    );
    const answers = await Promise.all(singles);
    assert.equal((await busy).status, 200);
    const refused = answers.filter((a) => a !== 'ok');
    assert.equal(refused.length, 3, JSON.stringify(answers));
    for (const e of refused) rejection(status.RESOURCE_EXHAUSTED, /Exceeds maximum queue size/)(e);
  });

  void it('a ModelInfer call cancelled while queued leaves the queue without running', async () => {
    const timing = await measureSlowModel(t, 'slow_cap');
    const successes = async (): Promise<number> => {
      const doc = (await (await fetch(`${t.base}/v2/models/slow_cap/stats`)).json()) as any;
      return doc.model_stats[0].inference_stats.success.count;
    };
    // A finished call is not cancelled after the fact (grpc-js reports every call's end as
    // 'cancelled'): this one is answered, and counted once.
    const first = await successes();
    await c.call('ModelInfer', {
      model_name: 'slow_cap',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, SLOW_WIDTH] }],
      raw_input_contents: [slowInput(1)],
    });
    assert.equal(await successes(), first + 1);
    const busy = inferSlow(t.base, 'slow_cap', timing.rowsFor(1000));
    const v = t.server.registry.resolve('slow_cap', undefined);
    await waitFor(
      () => v.scheduler.inflightCount(),
      (n) => n === 1,
    );
    const before = await successes();
    let settled: any;
    const call = c.stub.ModelInfer(
      {
        model_name: 'slow_cap',
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, SLOW_WIDTH] }],
        raw_input_contents: [slowInput(1)],
      },
      (err: any) => (settled = err),
    );
    assert.equal(
      await waitFor(
        () => pendingRequests(t.metricsBase, 'slow_cap'),
        (n) => n === 1,
      ),
      1,
    );
    let busyDone = false;
    void busy.then(() => (busyDone = true));
    call.cancel();
    assert.equal(
      await waitFor(
        () => pendingRequests(t.metricsBase, 'slow_cap'),
        (n) => n === 0,
      ),
      0,
    );
    assert.equal(busyDone, false, 'the cancelled call left the queue while the busy one still ran');
    assert.equal((await busy).status, 200);
    // Once the instance is idle, everything that was going to run has run.
    await waitFor(
      () => v.scheduler.inflightCount(),
      (n) => n === 0,
    );
    assert.equal(await successes(), before + 1, 'only the busy request ran');
    assert.equal(settled?.code, status.CANCELLED);
  });
});

void describe('gRPC: --grpc-restricted-protocol', () => {
  let t: TestServer;
  let c: GrpcTestClient;
  before(async () => {
    t = await startTestServer({
      modelRepositories: [FIXTURE_REPOSITORY],
      strictReadiness: false,
      grpcRestrictedProtocols: [
        { protocols: ['metadata', 'health'], header: 'triton-grpc-protocol-admin', value: 'yes' },
        { protocols: ['inference'], header: 'triton-grpc-protocol-infer-key', value: 'k' },
      ],
    });
    c = grpcClient(t.grpcTarget);
  });
  after(async () => {
    c.close();
    await t.close();
  });

  void it('refuses a restricted RPC without its header and serves it with it', async () => {
    await assert.rejects(
      c.call('ServerMetadata', {}),
      rejection(
        status.UNAVAILABLE,
        /This protocol is restricted, expecting header 'triton-grpc-protocol-admin'/,
      ),
    );
    await assert.rejects(c.check(), rejection(status.UNAVAILABLE, /restricted/));
    const meta = await c.call('ServerMetadata', {}, { 'triton-grpc-protocol-admin': 'yes' });
    assert.equal(meta.name, 'infernode');
    const stream = c.stub.ModelStreamInfer();
    const refused = await new Promise<any>((resolve) => stream.on('error', resolve));
    rejection(status.UNAVAILABLE, /expecting header 'triton-grpc-protocol-infer-key'/)(refused);
    // Unrestricted protocols need nothing.
    assert.ok(await c.call('ModelStatistics', { name: '' }));
  });
});
