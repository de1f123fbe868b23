// The gRPC load engine (`-i grpc`, with and without --streaming) against infernode started in this
// process, and the stream answer reader against messages encoded from Triton's protos. Asserts
// counts, ids and error texts, never speed.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  loadPackageDefinition,
  Server,
  ServerCredentials,
  type MethodDefinition,
  type ServerDuplexStream,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { grpcLoadEngine, type GrpcEngineInit } from '../../../bench/load/grpc-load-engine.js';
import {
  grpcRequestPayload,
  GrpcStreamTemplate,
  readStreamReply,
  streamId,
} from '../../../bench/load/grpc-request.js';
import type { LoadEngine } from '../../../bench/load/load-engine.js';
import { WindowRecorder } from '../../../bench/load/window-recorder.js';
import { decodeHistogram } from '../../../bench/measure/latency-histogram.js';
import type { InputSet } from '../../../bench/model/input-data.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';

const SIMPLE: InputSet = ['INPUT0', 'INPUT1'].map((name) => ({
  name,
  datatype: 'INT32' as const,
  shape: [1, 16],
  elements: Array.from({ length: 16 }, (_, i) => i),
}));

/** simple with INPUT1 of the wrong shape: the server refuses every one. */
const BAD_SHAPE: InputSet = [
  SIMPLE[0] as InputSet[number],
  { name: 'INPUT1', datatype: 'INT32', shape: [1, 3], elements: [1, 2, 3] },
];

/** The stream's messages, encoded here from the protos independently of the harness's loader. */
const streamMethod = (
  loadPackageDefinition(
    loadSync('grpc_service.proto', {
      keepCase: true,
      defaults: true,
      includeDirs: [path.join(REPO_ROOT, 'schemas', 'triton')],
    }),
  ) as any
).inference.GRPCInferenceService.service.ModelStreamInfer as MethodDefinition<object, object>;

const encodeAnswer = (message: object): Buffer =>
  (streamMethod.responseSerialize as (m: object) => Buffer)(message);

void describe('gRPC stream answers', () => {
  void it('reads the id and error of an answer, in any field order, skipping other fields', () => {
    const ok = encodeAnswer({
      infer_response: {
        model_name: 'simple',
        model_version: '1',
        id: streamId(0x1234abcd),
        outputs: [{ name: 'OUTPUT0', datatype: 'INT32', shape: [1, 16] }],
        raw_output_contents: [Buffer.alloc(64, 7)],
      },
    });
    assert.deepEqual(readStreamReply(ok), { id: 0x1234abcd, error: null });
    const failed = encodeAnswer({
      error_message: "unexpected shape for input 'INPUT1'",
      infer_response: { id: streamId(9), model_name: 'simple' },
    });
    assert.deepEqual(readStreamReply(failed), {
      id: 9,
      error: "unexpected shape for input 'INPUT1'",
    });
    // infer_response (field 2) before error_message (field 1): protobuf allows any order.
    const swapped = Buffer.concat([
      encodeAnswer({ infer_response: { id: streamId(3) } }),
      encodeAnswer({ error_message: 'late' }),
    ]);
    assert.deepEqual(readStreamReply(swapped), { id: 3, error: 'late' });
  });

  void it('finds no id in an answer without one, and says when bytes are not protobuf', () => {
    assert.deepEqual(readStreamReply(encodeAnswer({ infer_response: { id: 'client-7' } })), {
      id: undefined,
      error: null,
    });
    assert.deepEqual(readStreamReply(Buffer.from([0x12, 0x7f, 0x00])), {
      id: undefined,
      error: 'an undecodable ModelStreamInferResponse',
    });
  });

  void it('patches each send with its own id, leaving the template as it was', () => {
    const template = new GrpcStreamTemplate(grpcRequestPayload('simple', '', SIMPLE, true));
    const a = template.bytesFor(1);
    const b = template.bytesFor(0xffffffff);
    assert.equal(a.length, b.length);
    assert.ok(a.includes(Buffer.from('00000001')));
    assert.ok(b.includes(Buffer.from('ffffffff')));
    assert.ok(template.bytesFor(2).includes(Buffer.from('00000002')));
    assert.throws(
      () => new GrpcStreamTemplate(grpcRequestPayload('simple', '', SIMPLE, false)),
      /needs a placeholder id/,
    );
  });
});

void describe('gRPC load engine against infernode', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(async () => {
    await t.close();
  });

  function init(streaming: boolean, set: InputSet = SIMPLE): GrpcEngineInit {
    return {
      host: '127.0.0.1',
      port: t.server.grpcPort ?? 0,
      streaming,
      requests: [grpcRequestPayload('simple', '', set, streaming)],
      maxConnections: 16,
      requestTimeoutMs: 10_000,
    };
  }

  async function simpleCounts(): Promise<{ success: number; fail: number }> {
    const doc = (await (await fetch(`${t.base}/v2/models/simple/stats`)).json()) as any;
    const s = doc.model_stats[0].inference_stats;
    return { success: s.success.count, fail: s.fail.count };
  }

  /** Runs until the server counted `n` more of `kind` than now (not for a fixed time). */
  async function serverCounts(kind: 'success' | 'fail', n: number): Promise<void> {
    const from = (await simpleCounts())[kind];
    const now = await waitFor(simpleCounts, (c) => c[kind] >= from + n);
    assert.ok(now[kind] >= from + n, `the server counted ${now[kind] - from} of ${n} ${kind}`);
  }

  async function run(
    engine: LoadEngine,
    share: Parameters<LoadEngine['start']>[0],
    kind: 'success' | 'fail',
    n: number,
  ) {
    const recorder = new WindowRecorder();
    await engine.start(share, recorder);
    recorder.reset();
    await serverCounts(kind, n);
    await engine.stop();
    const w = recorder.take(engine.inFlight(), engine.queued());
    await engine.close();
    return w;
  }

  for (const streaming of [false, true]) {
    const name = streaming ? 'stream' : 'unary';

    void it(`${name}, closed loop: 100 in flight, every request answered`, async () => {
      const engine = grpcLoadEngine(init(streaming), 0);
      const w = await run(engine, { kind: 'concurrency', concurrency: 100 }, 'success', 300);
      assert.equal(w.errors, 0, w.errorSample ?? '');
      assert.ok(w.completed >= 300, `completed ${w.completed}`);
      assert.equal(decodeHistogram(w.histogram).totalCount, w.completed);
      assert.equal(w.inFlight, 0);
    });

    void it(`${name}: records the server's refusals (a wrong shape) as failures with their text`, async () => {
      const engine = grpcLoadEngine(init(streaming, BAD_SHAPE), 0);
      const w = await run(engine, { kind: 'concurrency', concurrency: 2 }, 'fail', 20);
      assert.equal(w.completed, 0);
      assert.ok(w.errors >= 20, `errors ${w.errors}`);
      // Unary calls fail with a status; stream answers carry error_message and the stream goes on.
      assert.match(w.errorSample ?? '', streaming ? /INPUT1/ : /^INVALID_ARGUMENT: .*INPUT1/);
    });

    void it(`${name}, open loop: a Poisson stream, all answered`, async () => {
      const engine = grpcLoadEngine(init(streaming), 0);
      const w = await run(
        engine,
        { kind: 'request-rate', rate: 300, distribution: 'poisson', seed: 7, phase: 0 },
        'success',
        60,
      );
      assert.equal(w.errors, 0, w.errorSample ?? '');
      assert.ok(w.completed >= 60, `completed ${w.completed}`);
      assert.equal(w.inFlight, 0);
    });
  }

  void it('fails to start, rather than hang, when nothing serves the port', async () => {
    const engine = grpcLoadEngine({ ...init(false), port: 1, requestTimeoutMs: 300 }, 0);
    await assert.rejects(
      engine.start({ kind: 'concurrency', concurrency: 1 }, new WindowRecorder()),
      /no gRPC connection within 300 ms/,
    );
    await engine.close();
  });
});

void describe('gRPC load engine against a server that never answers', () => {
  let server: Server;
  let port = 0;
  const held: { cancelled: boolean }[] = [];
  before(async () => {
    server = new Server();
    const service = (
      loadPackageDefinition(
        loadSync('grpc_service.proto', {
          keepCase: true,
          includeDirs: [path.join(REPO_ROOT, 'schemas', 'triton')],
        }),
      ) as any
    ).inference.GRPCInferenceService.service;
    server.addService(service, {
      // Both keep every request and answer none.
      ModelInfer: (call: ServerUnaryCall<unknown, unknown>) => {
        const h = { cancelled: false };
        held.push(h);
        call.on('cancelled', () => (h.cancelled = true));
      },
      ModelStreamInfer: (call: ServerDuplexStream<unknown, unknown>) => {
        call.on('data', () => held.push({ cancelled: false }));
        call.on('error', () => undefined);
      },
    });
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
        e === null ? resolve(p) : reject(e),
      ),
    );
  });
  after(() => {
    server.forceShutdown();
  });

  for (const streaming of [false, true]) {
    void it(`${streaming ? 'stream' : 'unary'}: times out each request and keeps N in flight`, async () => {
      held.length = 0;
      const engine = grpcLoadEngine(
        {
          host: '127.0.0.1',
          port,
          streaming,
          requests: [grpcRequestPayload('simple', '', SIMPLE, streaming)],
          maxConnections: 4,
          requestTimeoutMs: 150,
        },
        0,
      );
      const recorder = new WindowRecorder();
      await engine.start({ kind: 'concurrency', concurrency: 2 }, recorder);
      // Two sent, both timed out and replaced: at least four requests reached the server.
      await waitFor(
        () => held.length,
        (n) => n >= 4,
      );
      const w = recorder.take(engine.inFlight(), engine.queued());
      assert.equal(w.completed, 0);
      assert.ok(w.errors >= 2, `errors ${w.errors}`);
      assert.equal(w.errorSample, 'no response within 150 ms');
      assert.equal(w.inFlight, 2, 'a timed-out request is replaced at once');
      if (!streaming) {
        // A timed-out unary call is cancelled, so the server can drop it.
        assert.equal(
          await waitFor(
            () => held.slice(0, 2).every((h) => h.cancelled),
            (x) => x,
          ),
          true,
        );
      }
      await engine.stop();
      await engine.close();
    });
  }
});
