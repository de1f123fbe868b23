// JavaScript models (`backend: "javascript"`) on a real server with real worker threads: the small
// models below are written into a temporary repository, then served over HTTP and WebSocket. What
// is checked is what the backend promises: initialize() args, one execute() per batch with one
// request per client, per-request errors, a failed initialize() failing the load, an execute()
// past its timeout recycled, finalize() on unload, and instance_group count honoured.

import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InferenceClient, InferenceClientError } from '../../src/client/inference-client.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { waitFor } from '../helpers/wait-for.js';

/** Writes `<repo>/<name>/config.pbtxt` and `<repo>/<name>/1/<file>`. */
async function jsModel(
  repo: string,
  name: string,
  config: string,
  source: string,
  file = 'model.js',
): Promise<void> {
  await mkdir(path.join(repo, name, '1'), { recursive: true });
  await writeFile(path.join(repo, name, 'config.pbtxt'), `name: "${name}"\n${config}`);
  await writeFile(path.join(repo, name, '1', file), source);
}

// Batches of 4 dispatch as soon as they are full; anything less waits out the long queue delay.
const ECHO_CONFIG = `
backend: "javascript"
max_batch_size: 8
input [
  { name: "X" data_type: TYPE_FP32 dims: [ 2 ] },
  { name: "N" data_type: TYPE_INT64 dims: [ 1 ] },
  { name: "TEXT" data_type: TYPE_STRING dims: [ 1 ] }
]
output [
  { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] },
  { name: "N_PLUS_ONE" data_type: TYPE_INT64 dims: [ 1 ] },
  { name: "UPPER" data_type: TYPE_STRING dims: [ 1 ] },
  { name: "LIST" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "ARGS" data_type: TYPE_STRING dims: [ 1 ] }
]
dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 3000000 }
parameters { key: "greeting" value: { string_value: "hello" } }
`;

// An ES module with named exports; a request whose N is -1 is answered with its own Error.
const ECHO_SOURCE = `
let args;
export function initialize(a) { args = a; }
export function execute(requests) {
  return requests.map((r) => {
    const { X, N, TEXT } = r.inputs;
    if (N.data[0] === -1n) return new Error('N = -1 is refused');
    const rows = X.shape[0];
    return {
      outputs: {
        Y: { shape: [rows, 2], data: X.data.map((v) => v * 2) },
        N_PLUS_ONE: { datatype: 'INT64', shape: [rows, 1], data: N.data.map((v) => v + 1n) },
        UPPER: { shape: [rows, 1], data: TEXT.strings.map((s) => s.toUpperCase()) },
        LIST: { shape: [rows, 1], data: new Array(rows).fill(requests.length) },
        ARGS: {
          shape: [rows, 1],
          data: new Array(rows).fill(JSON.stringify({
            name: args.model_name,
            version: args.model_version,
            instance: args.model_instance_name,
            kind: args.model_instance_kind,
            dir: args.model_repository,
            configName: args.model_config.name,
            greeting: args.model_config.parameters.greeting.string_value,
            requested: r.requestedOutputs,
          })),
        },
      },
    };
  });
}
`;

const INIT_FAIL_SOURCE = `
export default {
  initialize() { throw new Error('the weights file is missing'); },
  execute(requests) { return requests.map(() => ({ outputs: {} })); },
};
`;

// -1: a synchronous endless loop; -2: a promise that never settles; else the input back.
const HANG_SOURCE = `
export default class Model {
  execute(requests) {
    const x = requests[0].inputs.X.data[0];
    if (x === -1) for (;;) {}
    if (x === -2) return new Promise(() => {});
    return requests.map((r) => ({ outputs: { Y: { shape: [1], data: r.inputs.X.data } } }));
  }
}
`;

const SLEEP_SOURCE = `
let name;
export function initialize(args) { name = args.model_instance_name; }
export async function execute(requests) {
  const start = Date.now();
  await new Promise((r) => setTimeout(r, 400));
  return requests.map(() => ({
    outputs: {
      START: { shape: [1], data: [start] },
      END: { shape: [1], data: [Date.now()] },
      INSTANCE: { shape: [1], data: [name] },
    },
  }));
}
`;

const FINAL_SOURCE = `
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
let args;
export function initialize(a) { args = a; }
export function execute(requests) {
  return requests.map((r) => ({ outputs: { Y: { shape: [1], data: r.inputs.X.data } } }));
}
export async function finalize() {
  await writeFile(path.join(args.model_repository, 'finalized-' + args.model_instance_name), 'bye');
}
`;

const SCALAR_IO = `
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
`;

interface JsonTensor {
  name: string;
  datatype: string;
  shape: number[];
  data: unknown[];
}

function echoInputs(k: number, n = k): JsonTensor[] {
  return [
    { name: 'X', datatype: 'FP32', shape: [1, 2], data: [k, k + 0.5] },
    { name: 'N', datatype: 'INT64', shape: [1, 1], data: [n] },
    { name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: [`client ${k}`] },
  ];
}

function output(json: any, name: string): JsonTensor {
  const found = (json.outputs as JsonTensor[]).find((o) => o.name === name);
  assert.ok(found !== undefined, `no output ${name} in ${JSON.stringify(json)}`);
  return found;
}

void describe('JavaScript models', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    await jsModel(repo, 'js_echo', ECHO_CONFIG, ECHO_SOURCE);
    await jsModel(
      repo,
      'js_init_fail',
      `backend: "javascript"\n${SCALAR_IO}`,
      INIT_FAIL_SOURCE,
      'model.mjs',
    );
    await jsModel(
      repo,
      'js_hang',
      `backend: "javascript"\n${SCALAR_IO}\n` +
        `parameters { key: "execute_timeout_ms" value: { string_value: "500" } }`,
      HANG_SOURCE,
    );
    await jsModel(
      repo,
      'js_sleep',
      `backend: "javascript"
      input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
      output [
        { name: "START" data_type: TYPE_FP64 dims: [ 1 ] },
        { name: "END" data_type: TYPE_FP64 dims: [ 1 ] },
        { name: "INSTANCE" data_type: TYPE_STRING dims: [ 1 ] }
      ]
      instance_group [ { count: 2 kind: KIND_CPU } ]`,
      SLEEP_SOURCE,
    );
    // One front-end thread: 'fails only the request whose response is an Error' counts on request
    // k reaching the batch k-th. With several threads, requests on separate connections reach the
    // main thread's queue in whichever order their threads post them.
    t = await startTestServer({ modelRepositories: [repo], httpThreadCount: 1 });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('gives initialize() the config, names, version and model directory', async () => {
    const res = await postJson(`${t.base}/v2/models/js_echo/infer`, {
      inputs: echoInputs(1),
      outputs: [{ name: 'ARGS' }, { name: 'Y' }],
    });
    // Alone, the request waits out the queue delay for company, then runs as a batch of one.
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(
      res.json.outputs.map((o: JsonTensor) => o.name),
      ['ARGS', 'Y'],
    );
    const args = JSON.parse(output(res.json, 'ARGS').data[0] as string);
    assert.deepEqual(args, {
      name: 'js_echo',
      version: 1,
      instance: 'js_echo',
      kind: 'CPU',
      dir: path.join(repo, 'js_echo'),
      configName: 'js_echo',
      greeting: 'hello',
      requested: ['ARGS', 'Y'],
    });
  });

  void it('takes BYTES elements holding NUL bytes as sent (ONNX models refuse them)', async () => {
    const inputs = echoInputs(3).map((i) =>
      i.name === 'TEXT' ? { ...i, data: ['nul\u0000inside'] } : i,
    );
    const res = await postJson(`${t.base}/v2/models/js_echo/infer`, {
      inputs,
      outputs: [{ name: 'UPPER' }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(output(res.json, 'UPPER').data, ['NUL\u0000INSIDE']);
  });

  void it('hands execute() one request per client when the batcher merges them', async () => {
    const answers = await Promise.all(
      [0, 1, 2, 3].map((k) =>
        postJson(`${t.base}/v2/models/js_echo/infer`, { id: `c${k}`, inputs: echoInputs(k) }),
      ),
    );
    answers.forEach((res, k) => {
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.equal(res.json.id, `c${k}`);
      assert.deepEqual(output(res.json, 'LIST').data, [4]);
      assert.deepEqual(output(res.json, 'Y').data, [2 * k, 2 * k + 1]);
      assert.deepEqual(output(res.json, 'Y').shape, [1, 2]);
      assert.deepEqual(output(res.json, 'N_PLUS_ONE').data, [k + 1]);
      assert.deepEqual(output(res.json, 'UPPER').data, [`CLIENT ${k}`]);
    });
    const stats = (await (await fetch(`${t.base}/v2/models/js_echo/stats`)).json()) as any;
    assert.ok(stats.model_stats[0].execution_count < stats.model_stats[0].inference_count);
  });

  void it('fails only the request whose response is an Error', async () => {
    const answers = await Promise.all(
      [0, 1, 2, 3].map((k) =>
        postJson(`${t.base}/v2/models/js_echo/infer`, { inputs: echoInputs(k, k === 2 ? -1 : k) }),
      ),
    );
    const bad = answers[2];
    assert.equal(bad?.status, 500);
    assert.match(
      bad?.json.error,
      /model "js_echo" version 1: response 2 of 4 is an error: N = -1 is refused/,
    );
    for (const k of [0, 1, 3]) {
      const res = answers[k];
      assert.equal(res?.status, 200, JSON.stringify(res?.json));
      assert.deepEqual(output(res?.json, 'LIST').data, [4]);
      assert.deepEqual(output(res?.json, 'N_PLUS_ONE').data, [k + 1]);
    }
  });

  void it('serves the same model over WebSocket with typed arrays and catalog error codes', async () => {
    const client = new InferenceClient({ url: t.base, protocol: 'ws', timeoutMs: 30_000 });
    try {
      const tensors = (k: number, n: bigint) => [
        { name: 'X', datatype: 'FP32' as const, shape: [1, 2], data: Float32Array.of(k, -k) },
        { name: 'N', datatype: 'INT64' as const, shape: [1, 1], data: BigInt64Array.of(n) },
        { name: 'TEXT', datatype: 'BYTES' as const, shape: [1, 1], data: ['ws'] },
      ];
      const results = await Promise.allSettled([
        client.infer('js_echo', tensors(1, 2n ** 40n)),
        client.infer('js_echo', tensors(2, -1n)),
        client.infer('js_echo', tensors(3, 7n)),
        client.infer('js_echo', tensors(4, 8n)),
      ]);
      const first = results[0];
      assert.equal(first?.status, 'fulfilled');
      if (first?.status === 'fulfilled') {
        const byName = new Map(first.value.outputs.map((o) => [o.name, o]));
        assert.deepEqual(byName.get('Y')?.data, Float32Array.of(2, -2));
        assert.deepEqual(byName.get('N_PLUS_ONE')?.data, BigInt64Array.of(2n ** 40n + 1n));
        assert.deepEqual(byName.get('LIST')?.data, Int32Array.of(4));
      }
      const second = results[1];
      assert.equal(second?.status, 'rejected');
      if (second?.status === 'rejected') {
        assert.ok(second.reason instanceof InferenceClientError);
        assert.equal(second.reason.code, 'MODEL_EXECUTE_FAILED');
        assert.match(second.reason.message, /N = -1 is refused/);
      }
      assert.equal(results[2]?.status, 'fulfilled');
      assert.equal(results[3]?.status, 'fulfilled');
    } finally {
      await client.close();
    }
  });

  void it('fails the load with the message initialize() threw', async () => {
    const index = await postJson(`${t.base}/v2/repository/index`, {});
    const row = (index.json as any[]).find((r) => r.name === 'js_init_fail');
    assert.equal(row?.state, 'UNAVAILABLE');
    assert.match(row?.reason, /initialize\(\) of js_init_fail\/1\/model\.mjs threw: the weights/);
    assert.doesNotMatch(row?.reason, new RegExp(repo));
    const res = await fetch(`${t.base}/v2/models/js_init_fail/ready`);
    assert.notEqual(res.status, 200);
  });

  for (const [how, x] of [
    ['loops forever', -1],
    ['returns a promise that never settles', -2],
  ] as const) {
    void it(`times out an execute() that ${how}, then serves again`, async () => {
      const started = performance.now();
      const hung = await postJson(`${t.base}/v2/models/js_hang/infer`, {
        inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [x] }],
      });
      assert.equal(hung.status, 503, JSON.stringify(hung.json));
      assert.match(
        hung.json.error,
        /did not settle within 500 ms \(parameter execute_timeout_ms\)/,
      );
      assert.ok(performance.now() - started < 10_000);
      const ready = await waitFor(
        async () => (await fetch(`${t.base}/v2/models/js_hang/ready`)).status,
        (s) => s === 200,
      );
      assert.equal(ready, 200);
      const ok = await postJson(`${t.base}/v2/models/js_hang/infer`, {
        inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [5] }],
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
      assert.deepEqual(output(ok.json, 'Y').data, [5]);
    });
  }

  void it('runs two instances of instance_group count 2 at the same time', async () => {
    const answers = await Promise.all(
      [0, 1].map(() =>
        postJson(`${t.base}/v2/models/js_sleep/infer`, {
          inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [0] }],
        }),
      ),
    );
    const runs = answers.map((res) => {
      assert.equal(res.status, 200, JSON.stringify(res.json));
      return {
        start: output(res.json, 'START').data[0] as number,
        end: output(res.json, 'END').data[0] as number,
        instance: output(res.json, 'INSTANCE').data[0] as string,
      };
    });
    assert.deepEqual(runs.map((r) => r.instance).sort(), ['js_sleep_0_0', 'js_sleep_0_1']);
    const [a, b] = runs as [(typeof runs)[0], (typeof runs)[0]];
    // Each run sleeps 400 ms: they overlap only if they ran at once.
    assert.ok(a.start < b.end && b.start < a.end, JSON.stringify(runs));
  });
});

void describe('JavaScript model finalize()', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    await jsModel(
      repo,
      'js_final',
      `backend: "javascript"\n${SCALAR_IO}\ninstance_group [ { count: 2 kind: KIND_CPU } ]`,
      FINAL_SOURCE,
    );
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['js_final'],
    });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('is called on every instance when the model unloads', async () => {
    const ok = await postJson(`${t.base}/v2/models/js_final/infer`, {
      inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [3] }],
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    const unload = await postJson(`${t.base}/v2/repository/models/js_final/unload`, {});
    assert.equal(unload.status, 200, JSON.stringify(unload.json));
    for (const instance of ['js_final_0_0', 'js_final_0_1']) {
      const file = path.join(repo, 'js_final', `finalized-${instance}`);
      const text = await waitFor(
        () => readFile(file, 'utf8').catch(() => ''),
        (s) => s === 'bye',
      );
      assert.equal(text, 'bye', instance);
    }
  });
});
