// A model that fails to load fails alone (Triton's L0_lifecycle model-fail cases): the others
// serve, its /ready is not ready, the repository index says why (file:line:col for config errors,
// never an absolute path), and /v2/health/ready follows --strict-readiness.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { copyModel, tempRepository, writeModel } from '../helpers/temp-repository.js';

const SIMPLE_INFER = {
  inputs: [
    { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(2) },
    { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
  ],
};

void describe('load failure isolation', () => {
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copyModel(repo, 'bad_truncated');
    await writeModel(
      repo,
      'bad_syntax',
      'name: "bad_syntax"\nmax_batch_size: 8\ninput [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] }\n',
      'simple',
    );
    await writeModel(repo, 'bad_field', 'name: "bad_field"\nmax_batch: 8\n', 'simple');
    await writeModel(
      repo,
      'wrong_type',
      [
        'name: "wrong_type"',
        'max_batch_size: 8',
        'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]',
        'output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]',
      ].join('\n'),
      'simple',
    );
    await writeModel(
      repo,
      'needs_gpu',
      'name: "needs_gpu"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\ninstance_group [ { kind: KIND_GPU gpus: [ 0 ] } ]\n',
      'simple',
    );
  });
  after(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  void describe('with --strict-readiness=true', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ modelRepositories: [repo], strictReadiness: true });
    });
    after(async () => {
      await t.close();
    });

    void it('stays live, is not ready, and serves the good model', async () => {
      assert.equal((await fetch(`${t.base}/v2/health/live`)).status, 200);
      assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 503);
      assert.equal((await fetch(`${t.base}/v2/models/simple/ready`)).status, 200);
      const r = await postJson(`${t.base}/v2/models/simple/infer`, SIMPLE_INFER);
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.outputs[0].data, Array(16).fill(3));
    });

    void it('reports each bad model not ready, with its reason in the index', async () => {
      for (const m of ['bad_truncated', 'bad_syntax', 'bad_field', 'needs_gpu', 'wrong_type']) {
        assert.equal((await fetch(`${t.base}/v2/models/${m}/ready`)).status, 503, m);
        const r = await postJson(`${t.base}/v2/models/${m}/infer`, SIMPLE_INFER);
        assert.equal(r.status, 503, m);
        assert.match(r.json.error, new RegExp(`'${m}' has no available versions`));
      }
      const index = (await postJson(`${t.base}/v2/repository/index`, {})).json as any[];
      const reason = (m: string) => index.find((e) => e.name === m)?.reason as string;
      assert.equal(index.find((e) => e.name === 'simple')?.state, 'READY');
      assert.match(reason('bad_syntax'), /bad_syntax\/config\.pbtxt:\d+:\d+/);
      assert.match(reason('bad_field'), /bad_field\/config\.pbtxt:2:1: .*max_batch/);
      assert.match(reason('needs_gpu'), /cuda.*ONNXRUNTIME_NODE_INSTALL=cuda12/s);
      assert.ok(reason('bad_truncated').length > 0);
      assert.match(reason('wrong_type'), /INPUT0/);
      for (const e of index) assert.ok(!String(e.reason).includes(repo), `${e.name}: ${e.reason}`);
    });
  });

  void describe('with --strict-readiness=false', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ modelRepositories: [repo], strictReadiness: false });
    });
    after(async () => {
      await t.close();
    });

    void it('is ready because some model is ready', async () => {
      assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
      assert.equal((await fetch(`${t.base}/v2/models/bad_syntax/ready`)).status, 503);
    });
  });
});
