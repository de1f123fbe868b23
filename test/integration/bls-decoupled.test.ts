// BLS and decoupled JavaScript models on a real server with real workers: small models written into
// a temporary repository next to the bundled `simple`. BLS: a model that calls `simple` and returns
// its answer, calls from concurrent requests batched by the callee, errors as values (unknown
// model, bad shape, a callee past the call's timeout). Decoupled: responses streamed over the
// WebSocket (msgpack) as frames under the request's id and then the `final` flag, HTTP refusing the
// model, and a BLS inferStream from one model into a decoupled one.

import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import { grpcClient } from '../helpers/grpc-client.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { RawSocket } from './websocket-raw-socket.js';

const packr = new Packr({ useRecords: false });

async function jsModel(repo: string, name: string, config: string, source: string): Promise<void> {
  await mkdir(path.join(repo, name, '1'), { recursive: true });
  await writeFile(
    path.join(repo, name, 'config.pbtxt'),
    `name: "${name}"\nbackend: "javascript"\n${config}`,
  );
  await writeFile(path.join(repo, name, '1', 'model.mjs'), source);
}

const X_TO_Y = `
input [ { name: "X" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "Y" data_type: TYPE_INT32 dims: [ 16 ] } ]
`;

// Calls simple with X and X (so OUTPUT0 = 2X); MODE picks a failure to provoke and report.
const CALLER_SOURCE = `
export async function execute(requests, context) {
  return Promise.all(requests.map(async (r) => {
    const x = r.inputs.X;
    const mode = r.inputs.MODE.strings[0];
    const model = mode === 'unknown' ? 'no_such_model' : mode === 'hang' ? 'js_hang' : 'simple';
    const shape = mode === 'bad_shape' ? [1, 15] : x.shape;
    const data = mode === 'bad_shape' ? x.data.subarray(0, 15) : x.data;
    const inputs = mode === 'hang'
      ? { X: { datatype: 'INT32', shape: x.shape, data } }
      : { INPUT0: { datatype: 'INT32', shape, data }, INPUT1: { datatype: 'INT32', shape, data } };
    const result = await context.infer(model, inputs, { outputs: mode === 'hang' ? ['Y'] : ['OUTPUT0'], timeoutMs: 300 });
    if (result instanceof Error) {
      // Recover: answer with the error's code in the data, as a value.
      return { outputs: {
        Y: { shape: x.shape, data: new Int32Array(16).fill(-1) },
        WHY: { shape: [1, 1], data: [result.name + ' ' + result.code + ': ' + result.message] },
      } };
    }
    return { outputs: {
      Y: { shape: x.shape, data: result.outputs.OUTPUT0.data },
      WHY: { shape: [1, 1], data: [result.model_name + '/' + result.model_version] },
    } };
  }));
}
`;

// A callee that batches (a long queue delay): BLS calls of concurrent requests share its runs.
const BATCHED_SOURCE = `
export function execute(requests) {
  return requests.map((r) => ({ outputs: { Y: { shape: r.inputs.X.shape, data: r.inputs.X.data.map((v) => v + 1) } } }));
}
`;
const FAN_SOURCE = `
export async function execute(requests, context) {
  return Promise.all(requests.map(async (r) => {
    const got = await context.infer('js_batched', { X: { datatype: 'INT32', shape: r.inputs.X.shape, data: r.inputs.X.data } });
    if (got instanceof Error) return got;
    return { outputs: { Y: { shape: r.inputs.X.shape, data: got.outputs.Y.data } } };
  }));
}
`;

const HANG_SOURCE = `
export function execute() { return new Promise(() => {}); }
`;

// Sends COUNT responses (row i: N = i), an Error in place of response FAIL_AT (when >= 0), then closes.
const DECOUPLED_SOURCE = `
export async function execute(requests) {
  for (const r of requests) {
    const count = Number(r.inputs.COUNT.data[0]);
    const failAt = Number(r.inputs.FAIL_AT.data[0]);
    for (let i = 0; i < count; i++) {
      await new Promise((res) => setTimeout(res, 5));
      if (i === failAt) r.sender.send(new Error('response ' + i + ' failed'));
      else r.sender.send({ outputs: { N: { shape: [1, 1], data: new Int32Array([i]) } } });
    }
    r.sender.close();
  }
}
`;
const DECOUPLED_CONFIG = `
max_batch_size: 4
model_transaction_policy { decoupled: true }
input [ { name: "COUNT" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "FAIL_AT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]
`;

// Streams from js_decoupled and answers with every N it got, and the errors' codes.
const STREAMER_SOURCE = `
export async function execute(requests, context) {
  const out = [];
  for (const r of requests) {
    const seen = [];
    const stream = context.inferStream('js_decoupled', {
      COUNT: { datatype: 'INT32', shape: [1, 1], data: [4] },
      FAIL_AT: { datatype: 'INT32', shape: [1, 1], data: [2] },
    });
    for await (const resp of stream) seen.push(resp instanceof Error ? resp.code : String(resp.outputs.N.data[0]));
    out.push({ outputs: { SEEN: { shape: [1], data: [seen.join(',')] } } });
  }
  return out;
}
`;

const INT32_16 = (k: number): number[] => Array.from({ length: 16 }, (_, i) => i + k);

function strOut(json: any, name: string): string {
  const o = (json.outputs as { name: string; data: unknown[] }[]).find((t) => t.name === name);
  assert.ok(o !== undefined, `no ${name} in ${JSON.stringify(json)}`);
  return String(o.data[0]);
}

void describe('BLS and decoupled JavaScript models', () => {
  let repo: string;
  let t: TestServer;
  let wsUrl: string;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await jsModel(
      repo,
      'js_caller',
      `max_batch_size: 8
      input [ { name: "X" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "MODE" data_type: TYPE_STRING dims: [ 1 ] } ]
      output [ { name: "Y" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "WHY" data_type: TYPE_STRING dims: [ 1 ] } ]`,
      CALLER_SOURCE,
    );
    await jsModel(
      repo,
      'js_hang',
      `max_batch_size: 8\n${X_TO_Y}\n` +
        `parameters { key: "execute_timeout_ms" value: { string_value: "1000" } }`,
      HANG_SOURCE,
    );
    await jsModel(
      repo,
      'js_batched',
      `max_batch_size: 8\n${X_TO_Y}\ndynamic_batching { max_queue_delay_microseconds: 200000 }`,
      BATCHED_SOURCE,
    );
    await jsModel(
      repo,
      'js_fan',
      `max_batch_size: 8\n${X_TO_Y}\ninstance_group [ { count: 4 kind: KIND_CPU } ]`,
      FAN_SOURCE,
    );
    await jsModel(repo, 'js_decoupled', DECOUPLED_CONFIG, DECOUPLED_SOURCE);
    await jsModel(
      repo,
      'js_streamer',
      `max_batch_size: 0
      input [ { name: "GO" data_type: TYPE_INT32 dims: [ 1 ] } ]
      output [ { name: "SEEN" data_type: TYPE_STRING dims: [ 1 ] } ]`,
      STREAMER_SOURCE,
    );
    t = await startTestServer({ modelRepositories: [repo] });
    wsUrl = `${t.base.replace('http', 'ws')}${WS_PATH}`;
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  const callCaller = (mode: string) =>
    postJson(`${t.base}/v2/models/js_caller/infer`, {
      inputs: [
        { name: 'X', datatype: 'INT32', shape: [1, 16], data: INT32_16(3) },
        { name: 'MODE', datatype: 'BYTES', shape: [1, 1], data: [mode] },
      ],
    });

  void it('calls simple through the data plane and returns its answer', async () => {
    const res = await callCaller('ok');
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const y = (res.json.outputs as { name: string; data: number[] }[]).find((o) => o.name === 'Y');
    assert.deepEqual(
      y?.data,
      INT32_16(3).map((v) => 2 * v),
    );
    assert.equal(strOut(res.json, 'WHY'), 'simple/1');
    const stats = (await (await fetch(`${t.base}/v2/models/simple/stats`)).json()) as any;
    assert.ok(stats.model_stats[0].inference_count >= 1, JSON.stringify(stats));
  });

  void it('returns errors as values: unknown model, bad shape, a callee past the timeout', async () => {
    const unknown = await callCaller('unknown');
    assert.equal(unknown.status, 200, JSON.stringify(unknown.json));
    assert.match(strOut(unknown.json, 'WHY'), /^InferError MODEL_NOT_FOUND: .*no_such_model/);
    const bad = await callCaller('bad_shape');
    assert.equal(bad.status, 200, JSON.stringify(bad.json));
    assert.match(strOut(bad.json, 'WHY'), /^InferError BAD_SHAPE: /);
    const started = Date.now();
    const hang = await callCaller('hang');
    assert.equal(hang.status, 200, JSON.stringify(hang.json));
    assert.match(strOut(hang.json, 'WHY'), /^InferError BLS_TIMEOUT: .*js_hang.*300 ms/);
    assert.ok(Date.now() - started < 5000);
  });

  void it('batches BLS calls from 8 concurrent requests in the callee', async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        postJson(`${t.base}/v2/models/js_fan/infer`, {
          inputs: [{ name: 'X', datatype: 'INT32', shape: [1, 16], data: INT32_16(k) }],
        }),
      ),
    );
    replies.forEach((r, k) => {
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.deepEqual(r.json.outputs[0].data, INT32_16(k + 1));
    });
    const stats = (await (await fetch(`${t.base}/v2/models/js_batched/stats`)).json()) as any;
    const s = stats.model_stats[0];
    assert.equal(s.inference_count, 8);
    assert.ok(s.execution_count < s.inference_count, JSON.stringify(s));
  });

  async function stream(id: number, count: number, failAt: number): Promise<any[]> {
    const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
    try {
      raw.send(
        packr.pack({
          id,
          model: 'js_decoupled',
          inputs: [
            {
              name: 'COUNT',
              datatype: 'INT32',
              shape: [1, 1],
              data: Buffer.from(Int32Array.of(count).buffer),
            },
            {
              name: 'FAIL_AT',
              datatype: 'INT32',
              shape: [1, 1],
              data: Buffer.from(Int32Array.of(failAt).buffer),
            },
          ],
        }),
      );
      const frames: any[] = [];
      for (;;) {
        const frame = (await raw.nextMessage()) as any;
        frames.push(frame);
        if (frame.final === true || (frame.error !== undefined && frame.final === undefined)) break;
      }
      return frames;
    } finally {
      raw.close();
    }
  }

  const nOf = (frame: any): number => Buffer.from(frame.outputs[0].data).readInt32LE(0);

  void it('streams a decoupled model over WebSocket: 3 responses, then the final flag', async () => {
    const frames = await stream(7, 3, -1);
    assert.equal(frames.length, 4, JSON.stringify(frames));
    frames.slice(0, 3).forEach((f, i) => {
      assert.equal(f.id, 7);
      assert.equal(f.final, false);
      assert.equal(nOf(f), i);
    });
    assert.deepEqual(
      { ...frames[3] },
      { id: 7, final: true, model_name: 'js_decoupled', model_version: '1', outputs: [] },
    );
  });

  void it('sends only the final flag for zero responses', async () => {
    const frames = await stream(8, 0, -1);
    assert.equal(frames.length, 1);
    assert.equal(frames[0].final, true);
    assert.deepEqual(frames[0].outputs, []);
  });

  void it('sends an Error response mid-stream as an error frame that is not final', async () => {
    const frames = await stream(9, 3, 1);
    assert.equal(frames.length, 4, JSON.stringify(frames));
    assert.equal(nOf(frames[0]), 0);
    assert.equal(frames[1].final, false);
    assert.equal(frames[1].error.code, 'MODEL_EXECUTE_FAILED');
    assert.match(frames[1].error.message, /response 1 failed/);
    assert.equal(nOf(frames[2]), 2);
    assert.equal(frames[3].final, true);
  });

  void it('refuses a decoupled model over HTTP /infer with 400', async () => {
    const res = await postJson(`${t.base}/v2/models/js_decoupled/infer`, {
      inputs: [
        { name: 'COUNT', datatype: 'INT32', shape: [1, 1], data: [1] },
        { name: 'FAIL_AT', datatype: 'INT32', shape: [1, 1], data: [-1] },
      ],
    });
    assert.equal(res.status, 400);
    assert.match(
      String(res.json.error),
      /doesn't support models with decoupled transaction policy/,
    );
  });

  void it('streams a decoupled model over gRPC ModelStreamInfer, marking the final response', async () => {
    const c = grpcClient(t.grpcTarget);
    try {
      const stream = c.stub.ModelStreamInfer();
      const got: any[] = [];
      const done = new Promise<void>((resolve, reject) => {
        stream.on('data', (r: any) => got.push(r));
        stream.on('end', resolve);
        stream.on('error', reject);
      });
      const request = (id: string, count: number, failAt: number) => ({
        model_name: 'js_decoupled',
        id,
        inputs: [
          { name: 'COUNT', datatype: 'INT32', shape: [1, 1] },
          { name: 'FAIL_AT', datatype: 'INT32', shape: [1, 1] },
        ],
        raw_input_contents: [
          Buffer.from(Int32Array.of(count).buffer),
          Buffer.from(Int32Array.of(failAt).buffer),
        ],
      });
      stream.write(request('three', 3, -1));
      stream.write(request('failing', 3, 1));
      stream.end();
      await done;
      const final = (r: any): boolean | undefined =>
        r.infer_response.parameters?.triton_final_response?.bool_param;
      const of = (id: string) => got.filter((r) => r.infer_response.id === id);
      const three = of('three');
      assert.deepEqual(
        three.map((r) => [final(r), r.infer_response.raw_output_contents?.length ?? 0]),
        [
          [false, 1],
          [false, 1],
          [false, 1],
          [true, 0],
        ],
      );
      assert.deepEqual(
        three
          .slice(0, 3)
          .map((r) => Buffer.from(r.infer_response.raw_output_contents[0]).readInt32LE(0)),
        [0, 1, 2],
      );
      const failing = of('failing');
      assert.equal(failing.length, 4);
      assert.match(failing[1].error_message, /response 1 failed/);
      assert.equal(final(failing[3]), true);
    } finally {
      c.close();
    }
  });

  void it('streams from a decoupled model into another JS model with inferStream', async () => {
    const res = await postJson(`${t.base}/v2/models/js_streamer/infer`, {
      inputs: [{ name: 'GO', datatype: 'INT32', shape: [1], data: [1] }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(strOut(res.json, 'SEEN'), '0,1,MODEL_EXECUTE_FAILED,3');
  });
});
