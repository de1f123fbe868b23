// ModelStreamInfer end to end: 1,000 requests in flight on one stream, each answered with its own
// result; errors as error_message without ending the stream; a stream closed with requests queued
// takes them out of the queue before they run; a client that reads nothing makes the server stop
// executing once its unsent answers reach the bound, and gets every answer when it reads. Each
// case runs on both server paths: plain calls on the bare HTTP/2 stream (src/grpc/stream-infer.ts),
// calls with a deadline through grpc-js (src/grpc/model-stream.ts).

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { SLOW_WIDTH } from '../../scripts/onnx/fixture-models.js';
import { STREAM_MAX_UNSENT_BYTES } from '../../src/grpc/stream-session.js';
import { grpcClient, inferenceMethods, type GrpcTestClient } from '../helpers/grpc-client.js';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  slowInput,
} from '../helpers/slow-model-timing.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { pendingRequests, waitFor } from '../helpers/wait-for.js';

const ints = (f: (i: number) => number): Buffer =>
  Buffer.from(Int32Array.from({ length: 16 }, (_, i) => f(i)).buffer);

function simpleRequest(id: string, k: number): object {
  return {
    model_name: 'simple',
    id,
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
    ],
    outputs: [{ name: 'OUTPUT0' }],
    raw_input_contents: [ints((i) => i * k), ints(() => k)],
  };
}

/** OUTPUT0 of `simple` for simpleRequest(_, k): INPUT0 + INPUT1. */
const expected = (k: number): number[] => Array.from({ length: 16 }, (_, i) => i * k + k);

const int32s = (b: Uint8Array): number[] => [...new Int32Array(Uint8Array.from(b).buffer)];

/** The two server paths, and what a client sends to take each. */
const PATHS = [
  { path: 'direct', callOptions: () => ({}), headers: {} },
  {
    path: 'grpc-js',
    // A deadline sends grpc-timeout, which takes the call through grpc-js.
    callOptions: () => ({ deadline: Date.now() + 60_000 }),
    headers: { 'grpc-timeout': '60S' },
  },
] as const;

for (const { path, callOptions, headers } of PATHS)
  void describe(`gRPC ModelStreamInfer (${path} path)`, () => {
    let repo: string;
    let t: TestServer;
    let c: GrpcTestClient;
    before(async () => {
      repo = await tempRepository();
      await copyModel(repo, 'simple');
      await copySlowModel(repo, 'slow_stream', '');
      await copyModel(repo, 'identity_fp32');
      t = await startTestServer({ modelRepositories: [repo] });
      c = grpcClient(t.grpcTarget);
    });
    after(async () => {
      c.close();
      await t.close();
      await rm(repo, { recursive: true, force: true });
    });

    void it('answers 1,000 requests in flight on one stream, each with its own result', async () => {
      const n = 1000;
      const stream = c.stub.ModelStreamInfer(callOptions());
      const answers = new Map<string, any>();
      const done = new Promise<void>((resolve, reject) => {
        stream.on('data', (r: any) => answers.set(r.infer_response.id, r));
        stream.on('end', resolve);
        stream.on('error', reject);
      });
      for (let k = 0; k < n; k++) stream.write(simpleRequest(`r${k}`, k));
      stream.end();
      await done;
      assert.equal(answers.size, n);
      for (let k = 0; k < n; k++) {
        const r = answers.get(`r${k}`);
        assert.equal(r.error_message, '', `r${k}`);
        assert.deepEqual(int32s(r.infer_response.raw_output_contents[0]), expected(k), `r${k}`);
      }
    });

    void it('answers a bad request with error_message and keeps the stream going', async () => {
      const stream = c.stub.ModelStreamInfer(callOptions());
      const answers: any[] = [];
      const done = new Promise<void>((resolve, reject) => {
        stream.on('data', (r: any) => answers.push(r));
        stream.on('end', resolve);
        stream.on('error', reject);
      });
      stream.write(simpleRequest('good-1', 1));
      stream.write({ model_name: 'nope', id: 'bad-model' });
      stream.write({ ...simpleRequest('no-inputs', 2), inputs: [], raw_input_contents: [] });
      stream.write(simpleRequest('good-2', 2));
      stream.end();
      await done;
      const byId = new Map(answers.map((r) => [r.infer_response.id, r]));
      assert.equal(byId.size, 4);
      assert.equal(byId.get('good-1').error_message, '');
      assert.deepEqual(
        int32s(byId.get('good-2').infer_response.raw_output_contents[0]),
        expected(2),
      );
      assert.match(byId.get('bad-model').error_message, /nope/);
      assert.equal(byId.get('bad-model').infer_response.model_name, 'nope');
      assert.match(byId.get('no-inputs').error_message, /INPUT0/);
    });

    void it('closing the stream takes its queued requests out of the queue', async () => {
      const timing = await measureSlowModel(t, 'slow_stream');
      const before = await stats(t, 'slow_stream');
      // One long request on the only instance, then three behind it on the stream.
      const busy = inferSlow(t.base, 'slow_stream', timing.rowsFor(1000));
      const v = t.server.registry.resolve('slow_stream', undefined);
      await waitFor(
        () => v.scheduler.inflightCount(),
        (n) => n === 1,
      );
      const stream = c.stub.ModelStreamInfer(callOptions());
      const closed = new Promise<void>((resolve) => stream.on('error', () => resolve()));
      for (let k = 0; k < 3; k++) {
        stream.write({
          model_name: 'slow_stream',
          id: `q${k}`,
          inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, SLOW_WIDTH] }],
          raw_input_contents: [slowInput(1, k)],
        });
      }
      assert.equal(
        await waitFor(
          () => pendingRequests(t.metricsBase, 'slow_stream'),
          (n) => n === 3,
        ),
        3,
      );
      stream.cancel();
      await closed;
      assert.equal(
        await waitFor(
          () => pendingRequests(t.metricsBase, 'slow_stream'),
          (n) => n === 0,
        ),
        0,
        'the queued requests left the queue when the stream closed',
      );
      assert.equal((await busy).status, 200, 'the running request was not affected');
      const after = await stats(t, 'slow_stream');
      assert.equal(
        after.inference_stats.success.count - before.inference_stats.success.count,
        1,
        'only the busy request ran',
      );
    });

    void it('stops executing a stream whose reader reads nothing once its unsent answers reach the bound', async () => {
      // 1 MiB answers: the bound is then reached after a few answers, well before the 16 answers
      // grpc-js's own write buffer would hold.
      const floats = 256 * 1024;
      const bound = Math.ceil(STREAM_MAX_UNSENT_BYTES / (floats * 4));
      const n = bound + 6;
      const request = (k: number): object => ({
        model_name: 'identity_fp32',
        id: `s${k}`,
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, floats] }],
        raw_input_contents: [Buffer.from(new Float32Array(floats).fill(k).buffer)],
      });
      const executed = async (): Promise<number> =>
        (await stats(t, 'identity_fp32')).inference_stats.success.count - start;
      const start = (await stats(t, 'identity_fp32')).inference_stats.success.count;
      const client = stalledStream(t.grpcTarget, headers);
      try {
        // One request at a time, each once the one before ran: the server reads and runs them
        // until the unsent answers reach the bound ...
        for (let k = 0; k < bound; k++) {
          client.send(request(k));
          assert.equal(await waitFor(executed, (x) => x === k + 1), k + 1, `request ${k} ran`);
        }
        // ... and then reads no more: these wait in the transport and none of them runs.
        for (let k = bound; k < n; k++) client.send(request(k));
        assert.equal(
          await waitFor(executed, (x) => x > bound, 1000),
          bound,
          `the server stopped at ${bound} answers of ${floats * 4} bytes unsent`,
        );
        assert.equal(await pendingRequests(t.metricsBase, 'identity_fp32'), 0, 'none queued');
        // Reading lets the answers out, the stream resumes, and every request is answered.
        const answers = await client.readAll();
        assert.equal(answers.length, n);
        assert.deepEqual(
          answers.map((a) => a.infer_response.id).sort(),
          Array.from({ length: n }, (_, k) => `s${k}`).sort(),
        );
        for (const a of answers) {
          assert.equal(a.error_message, '');
          const k = Number(a.infer_response.id.slice(1));
          const out = Buffer.from(a.infer_response.raw_output_contents[0]);
          assert.equal(out.length, floats * 4);
          assert.equal(out.readFloatLE(0), k);
          assert.equal(out.readFloatLE(out.length - 4), k);
        }
        assert.equal(await executed(), n);
      } finally {
        client.close();
      }
    });
  });

/**
 * A ModelStreamInfer call on a raw HTTP/2 session whose receive window is 1 KiB and which reads
 * nothing until `readAll`: the server can send it almost nothing, so every answer stays unsent.
 */
function stalledStream(
  target: string,
  headers: http2.OutgoingHttpHeaders,
): {
  send(request: object): void;
  readAll(): Promise<any[]>;
  close(): void;
} {
  const session = http2.connect(`http://${target}`, { settings: { initialWindowSize: 1024 } });
  const stream = session.request({
    ':method': 'POST',
    ':path': '/inference.GRPCInferenceService/ModelStreamInfer',
    'content-type': 'application/grpc',
    te: 'trailers',
    ...headers,
  });
  stream.pause();
  const method = inferenceMethods['ModelStreamInfer'];
  if (method === undefined) throw new Error('no ModelStreamInfer in the protos');
  return {
    send: (request) => {
      const message = method.requestSerialize(request);
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(message.length, 1);
      stream.write(Buffer.concat([prefix, message]));
    },
    readAll: () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('error', reject);
        stream.on('end', () => {
          let rest = Buffer.concat(chunks);
          const answers: any[] = [];
          while (rest.length >= 5) {
            const length = rest.readUInt32BE(1);
            answers.push(method.responseDeserialize(rest.subarray(5, 5 + length)));
            rest = rest.subarray(5 + length);
          }
          resolve(answers);
        });
        stream.end();
        stream.resume();
      }),
    close: () => session.close(),
  };
}

async function stats(t: TestServer, model: string): Promise<any> {
  const s = (await (await fetch(`${t.base}/v2/models/${model}/stats`)).json()) as any;
  return s.model_stats[0];
}
