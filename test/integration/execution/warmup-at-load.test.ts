// model_warmup through the loader: a model whose config.pbtxt has warmup samples runs them on every
// instance before it is ready (each worker reports how many it ran), then serves, input_data_file
// samples included; a file of the wrong size, or a sample the model rejects, fails that model's load
// with a reason naming the sample and the input.

import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { copyModel, tempRepository, writeModel } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';

const SIMPLE_WARMUP = `
model_warmup [
  {
    name: "zeros"
    batch_size: 8
    count: 2
    inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 16 ] zero_data: true } }
    inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 16 ] zero_data: true } }
  },
  {
    name: "random"
    batch_size: 1
    inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 16 ] random_data: true } }
    inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 16 ] random_data: true } }
  }
]
`;

const BYTES_WARMUP = `
model_warmup {
  name: "empty_strings"
  batch_size: 2
  inputs { key: "INPUT0" value: { data_type: TYPE_STRING dims: [ 4 ] zero_data: true } }
}
`;

const FILE_WARMUP = `
model_warmup {
  name: "from_file"
  batch_size: 2
  inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 16 ] input_data_file: "input0.bin" } }
  inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 16 ] zero_data: true } }
}
`;

const BYTES_FILE_WARMUP = `
model_warmup {
  name: "strings_from_file"
  batch_size: 2
  inputs { key: "INPUT0" value: { data_type: TYPE_STRING dims: [ 3 ] input_data_file: "strings/three.bin" } }
}
`;

/** One sample of simple's INPUT0: 16 INT32, little-endian. */
const INPUT0_ROW = new Uint8Array(Int32Array.from({ length: 16 }, (_, i) => i).buffer);

/** BYTES elements as the file holds them: each a 4-byte little-endian length, then its bytes. */
function bytesElements(...texts: string[]): Buffer {
  return Buffer.concat(
    texts.flatMap((t) => {
      const prefix = Buffer.alloc(4);
      prefix.writeUInt32LE(Buffer.byteLength(t));
      return [prefix, Buffer.from(t)];
    }),
  );
}

/** Copies `from` as `name` with `extra` appended to its config.pbtxt; returns the model dir. */
async function variant(repo: string, from: string, name: string, extra: string): Promise<string> {
  const dir = await copyModel(repo, from, name);
  const config = await readFile(path.join(dir, 'config.pbtxt'), 'utf8');
  await writeFile(
    path.join(dir, 'config.pbtxt'),
    config.replace(`name: "${from}"`, `name: "${name}"`) + extra,
  );
  return dir;
}

/** Writes `<dir>/warmup/<file>`. */
async function warmupFile(dir: string, file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(path.dirname(path.join(dir, 'warmup', file)), { recursive: true });
  await writeFile(path.join(dir, 'warmup', file), bytes);
}

/** The `msg` of every log line for `model`. */
function messages(logs: readonly string[], model: string): string[] {
  return logs
    .map((l) => JSON.parse(l) as { model?: string; msg: string })
    .filter((l) => l.model === model)
    .map((l) => l.msg);
}

void describe('model_warmup at load', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    await appendFile(path.join(await copyModel(repo, 'simple'), 'config.pbtxt'), SIMPLE_WARMUP);
    await appendFile(
      path.join(await copyModel(repo, 'identity_bytes'), 'config.pbtxt'),
      BYTES_WARMUP,
    );
    await warmupFile(
      await variant(repo, 'simple', 'simple_file', FILE_WARMUP),
      'input0.bin',
      INPUT0_ROW,
    );
    await warmupFile(
      await variant(repo, 'identity_bytes', 'bytes_file', BYTES_FILE_WARMUP),
      'strings/three.bin',
      bytesElements('a', '', 'héllo'),
    );
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('every instance runs each sample count times before the model is ready', () => {
    // zeros ×2 + random ×1, on simple's one instance.
    assert.ok(
      messages(t.logs, 'simple').some((m) =>
        /^model "simple" v1: instance simple_0 ran 3 warmup request\(s\) in [\d.]+ ms$/.test(m),
      ),
      t.logs.join('\n'),
    );
    assert.ok(
      messages(t.logs, 'identity_bytes').some((m) =>
        /instance identity_bytes_0 ran 1 warmup request\(s\)/.test(m),
      ),
      t.logs.join('\n'),
    );
  });

  void it('a warmed-up model is ready and serves', async () => {
    assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
    const r = await postJson(`${t.base}/v2/models/simple/infer`, {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(5) },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(2) },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.outputs[0].data, Array(16).fill(7));
  });

  void it('input_data_file samples run, and the model serves', async () => {
    for (const [model, instance] of [
      ['simple_file', 'simple_file_0'],
      ['bytes_file', 'bytes_file_0'],
    ] as const) {
      assert.ok(
        messages(t.logs, model).some((m) =>
          new RegExp(`instance ${instance} ran 1 warmup request\\(s\\)`).test(m),
        ),
        t.logs.join('\n'),
      );
      assert.equal((await fetch(`${t.base}/v2/models/${model}/ready`)).status, 200, model);
    }
    const r = await postJson(`${t.base}/v2/models/simple_file/infer`, {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.outputs[0].data, Array(16).fill(2));
  });
});

/** A simple-like model whose inputs and outputs take any length, so a warmup can send the wrong one. */
const ANY_LENGTH = `
name: "simple_bad_shape"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [
  { name: "INPUT0" data_type: TYPE_INT32 dims: [ -1 ] },
  { name: "INPUT1" data_type: TYPE_INT32 dims: [ -1 ] }
]
output [
  { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ -1 ] },
  { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ -1 ] }
]
instance_group [ { count: 1, kind: KIND_CPU } ]
model_warmup {
  name: "w1"
  batch_size: 1
  inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 8 ] zero_data: true } }
  inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 8 ] zero_data: true } }
}
`;

const SHORT_FILE_WARMUP = `
model_warmup {
  name: "w1"
  batch_size: 1
  inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 16 ] input_data_file: "input0.bin" } }
  inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 16 ] zero_data: true } }
}
`;

void describe('model_warmup that fails the load', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await warmupFile(
      await variant(repo, 'simple', 'simple_short', SHORT_FILE_WARMUP),
      'input0.bin',
      INPUT0_ROW.subarray(0, 60),
    );
    await writeModel(repo, 'simple_bad_shape', ANY_LENGTH, 'simple');
    t = await startTestServer({ modelRepositories: [repo], strictReadiness: true });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  /** The model's reason in the repository index, checked to be UNAVAILABLE and in the log too. */
  async function failure(model: string): Promise<string> {
    assert.equal((await fetch(`${t.base}/v2/models/${model}/ready`)).status, 503, model);
    const index = (await postJson(`${t.base}/v2/repository/index`, {})).json as Array<{
      name: string;
      state: string;
      reason?: string;
    }>;
    const entry = index.find((e) => e.name === model) ?? assert.fail(`${model} not in the index`);
    assert.equal(entry.state, 'UNAVAILABLE');
    const reason = entry.reason ?? assert.fail(`${model} has no reason`);
    assert.ok(!reason.includes(repo), reason);
    const logged = t.logs
      .map((l) => JSON.parse(l) as { model?: string; msg: string; reason?: string })
      .filter((l) => l.model === model && l.msg === 'model failed to load');
    assert.deepEqual(
      logged.map((l) => l.reason),
      [reason],
    );
    return reason;
  }

  void it('a file of the wrong size: the model, sample, input and sizes', async () => {
    assert.equal(
      await failure('simple_short'),
      "model 'simple_short' warmup sample 'w1' input 'INPUT0': warmup/input0.bin holds 60 " +
        'bytes, expected 64 (one sample of INT32 dims [16], without the batch dim)',
    );
  });

  void it('a sample the model rejects: the warmup sample and the input ORT names', async () => {
    assert.match(
      await failure('simple_bad_shape'),
      /^failed to load model "simple_bad_shape" version 1 instance simple_bad_shape_0: warmup "w1" failed: .*invalid dimensions for input: INPUT0\b/s,
    );
  });

  void it('the other models serve; the server is not ready under --strict-readiness', async () => {
    assert.equal((await fetch(`${t.base}/v2/models/simple/ready`)).status, 200);
    assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 503);
  });
});
