// ModelStreamInfer end to end: 1,000 requests in flight on one stream, each answered with its own
// result; errors as error_message without ending the stream; a stream closed with requests queued
// takes them out of the queue before they run.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { SLOW_WIDTH } from '../../scripts/onnx/fixture-models.js';
import { grpcClient, type GrpcTestClient } from '../helpers/grpc-client.js';
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

void describe('gRPC ModelStreamInfer', () => {
  let repo: string;
  let t: TestServer;
  let c: GrpcTestClient;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copySlowModel(repo, 'slow_stream', '');
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
    const stream = c.stub.ModelStreamInfer();
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
    const stream = c.stub.ModelStreamInfer();
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
    assert.deepEqual(int32s(byId.get('good-2').infer_response.raw_output_contents[0]), expected(2));
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
    const stream = c.stub.ModelStreamInfer();
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
});

async function stats(t: TestServer, model: string): Promise<any> {
  const s = (await (await fetch(`${t.base}/v2/models/${model}/stats`)).json()) as any;
  return s.model_stats[0];
}
