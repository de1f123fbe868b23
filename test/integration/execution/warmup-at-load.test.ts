// model_warmup through the loader: a model whose config.pbtxt has warmup samples runs them on every
// instance before it is ready (each worker reports how many it ran), then serves; a sample reading
// input_data_file is skipped with a warning and the model still loads.

import assert from 'node:assert/strict';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
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
  batch_size: 1
  inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 16 ] input_data_file: "input0.bin" } }
  inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 16 ] zero_data: true } }
}
`;

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
    const fileDir = await copyModel(repo, 'simple', 'simple_file');
    const config = await readFile(path.join(fileDir, 'config.pbtxt'), 'utf8');
    await writeFile(
      path.join(fileDir, 'config.pbtxt'),
      config.replace('name: "simple"', 'name: "simple_file"') + FILE_WARMUP,
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

  void it('a sample reading input_data_file is skipped with a warning, and the model loads', async () => {
    const logged = messages(t.logs, 'simple_file');
    assert.ok(
      logged.includes(
        `model_warmup sample 'from_file' is skipped: input 'INPUT0' reads input_data_file ` +
          `"input0.bin", which infernode does not load yet (zero_data and random_data samples run)`,
      ),
      t.logs.join('\n'),
    );
    assert.ok(!logged.some((m) => /warmup request/.test(m)), 'no warmup ran');
    assert.equal((await fetch(`${t.base}/v2/models/simple_file/ready`)).status, 200);
  });
});
