// Ensembles (`platform: "ensemble"`) on a real server: a chain of two `simple` steps answers what
// running the steps by hand answers, on every transport; independent branches run at once; a
// failing step fails the request with its step named; composing models count each step in their
// statistics; the ensemble is ready only while its models are; loading it loads them; and a config
// whose steps do not fit their models fails to load with the reason.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InferenceClient } from '../../src/client/inference-client.js';
import { tensor } from '../../src/client/client-tensor.js';
import {
  copySlowModel,
  inferSlow,
  SLOW_MAX_BATCH,
  slowRequest,
} from '../helpers/slow-model-timing.js';
import { SIMPLE_TWICE_CONFIG } from '../helpers/ensemble-configs.js';
import { copyModel, tempRepository, writeModel } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const CHAIN = SIMPLE_TWICE_CONFIG;

const PAIR = `
name: "slow_pair"
platform: "ensemble"
max_batch_size: ${SLOW_MAX_BATCH}
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 1024 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 1024 ] }, { name: "OUTPUT1" data_type: TYPE_FP32 dims: [ 1024 ] } ]
ensemble_scheduling {
  step [
    { model_name: "slow_a" input_map { key: "INPUT0" value: "INPUT0" } output_map { key: "OUTPUT0" value: "OUTPUT0" } },
    { model_name: "slow_b" input_map { key: "INPUT0" value: "INPUT0" } output_map { key: "OUTPUT0" value: "OUTPUT1" } }
  ]
}`;

const FAILING = `
name: "fails_inside"
platform: "ensemble"
max_batch_size: 8
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 8 ] } ]
ensemble_scheduling {
  step [ { model_name: "failing_run" input_map { key: "INPUT0" value: "X" } output_map { key: "OUTPUT0" value: "Y" } } ]
}`;

/** simple's step read as FP32: the types do not line up. */
const MISMATCH = `
name: "mismatch"
platform: "ensemble"
max_batch_size: 8
input [ { name: "A" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "S" data_type: TYPE_INT32 dims: [ 16 ] } ]
ensemble_scheduling {
  step [ { model_name: "simple" input_map { key: "INPUT0" value: "A" } input_map { key: "INPUT1" value: "B" } output_map { key: "OUTPUT0" value: "S" } } ]
}`;

const range = (k: number): Int32Array => Int32Array.from({ length: 16 }, (_, i) => i * k - 7);

void describe('ensembles on a real server', () => {
  let t: TestServer;

  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copyModel(repo, 'failing_run');
    await copySlowModel(repo, 'slow_a');
    await copySlowModel(repo, 'slow_b');
    await writeModel(repo, 'simple_twice', CHAIN);
    await writeModel(repo, 'slow_pair', PAIR);
    await writeModel(repo, 'fails_inside', FAILING);
    await writeModel(repo, 'mismatch', MISMATCH);
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['simple_twice', 'slow_pair', 'fails_inside'],
    });
  });
  after(async () => {
    await t?.close();
  });

  void it('loads the models its steps name, and answers what the steps give by hand', async () => {
    const index = await postJson(`${t.base}/v2/repository/index`, {});
    const state = (n: string) => index.json.find((r: { name: string }) => r.name === n)?.state;
    for (const m of ['simple', 'slow_a', 'slow_b', 'failing_run', 'simple_twice', 'slow_pair']) {
      assert.equal(state(m), 'READY', m);
    }
    const meta = (await (await fetch(`${t.base}/v2/models/simple_twice`)).json()) as {
      platform: string;
    };
    assert.equal(meta.platform, 'ensemble');
    const a = range(3);
    const b = range(-2);
    for (const protocol of ['http-json', 'http-binary', 'ws', 'grpc'] as const) {
      const client = new InferenceClient({
        url: protocol === 'grpc' ? t.grpcTarget : t.base,
        protocol,
      });
      try {
        const inputs = [tensor('A', 'INT32', [1, 16], a), tensor('B', 'INT32', [1, 16], b)];
        const r = await client.infer('simple_twice', inputs);
        // By hand: simple(A, B) = (A+B, A-B); simple(A+B, A-B) = (2A, 2B).
        const sum = await client.infer('simple', [
          tensor('INPUT0', 'INT32', [1, 16], a),
          tensor('INPUT1', 'INT32', [1, 16], b),
        ]);
        const s0 = sum.outputs.find((o) => o.name === 'OUTPUT0')?.data as Int32Array;
        const s1 = sum.outputs.find((o) => o.name === 'OUTPUT1')?.data as Int32Array;
        const twice = await client.infer('simple', [
          tensor('INPUT0', 'INT32', [1, 16], s0),
          tensor('INPUT1', 'INT32', [1, 16], s1),
        ]);
        for (const [ens, step] of [
          ['TWO_A', 'OUTPUT0'],
          ['TWO_B', 'OUTPUT1'],
        ] as const) {
          const got = r.outputs.find((o) => o.name === ens);
          assert.deepEqual(got?.shape, [1, 16], protocol);
          assert.deepEqual(
            [...(got?.data as Int32Array)],
            [...(twice.outputs.find((o) => o.name === step)?.data as Int32Array)],
            `${protocol} ${ens}`,
          );
        }
        assert.deepEqual(
          [...(r.outputs[0]?.data as Int32Array)],
          [...a].map((x) => 2 * x),
        );
      } finally {
        await client.close();
      }
    }
  });

  void it("counts each step in its model's statistics and the request in the ensemble's", async () => {
    const stats = async (m: string): Promise<number> => {
      const j = (await (await fetch(`${t.base}/v2/models/${m}/stats`)).json()) as {
        model_stats: { inference_stats: { success: { count: number } } }[];
      };
      return j.model_stats[0]?.inference_stats.success.count ?? 0;
    };
    const [simpleBefore, ensembleBefore] = [await stats('simple'), await stats('simple_twice')];
    const body = {
      inputs: [
        { name: 'A', datatype: 'INT32', shape: [1, 16], data: [...range(1)] },
        { name: 'B', datatype: 'INT32', shape: [1, 16], data: [...range(2)] },
      ],
    };
    for (let i = 0; i < 3; i++) {
      const r = await postJson(`${t.base}/v2/models/simple_twice/infer`, body);
      assert.equal(r.status, 200, JSON.stringify(r.json));
    }
    assert.equal((await stats('simple')) - simpleBefore, 6, 'two steps per request');
    assert.equal((await stats('simple_twice')) - ensembleBefore, 3);
  });

  void it('runs a graph with two branches from one input, each on its own model', async () => {
    // That the branches overlap in time is shown deterministically in the scheduler's unit test
    // (test/unit/repository/backends/ensemble-scheduler.test.ts); here, that both really run and answer.
    const rows = 3;
    const { body, headers } = slowRequest(rows, 5);
    const res = await fetch(`${t.base}/v2/models/slow_pair/infer`, {
      method: 'POST',
      headers,
      body: body,
    });
    assert.equal(res.status, 200);
    const alone = await inferSlow(t.base, 'slow_a', rows, { seed: 5 });
    assert.equal(alone.status, 200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const header = JSON.parse(
      bytes.subarray(0, Number(res.headers.get('inference-header-content-length'))).toString(),
    ) as { outputs: { name: string; shape: number[] }[] };
    assert.deepEqual(
      header.outputs.map((o) => [o.name, o.shape]),
      [['OUTPUT0', [rows, 1024]]],
    );
    const stats = async (m: string): Promise<number> => {
      const j = (await (await fetch(`${t.base}/v2/models/${m}/stats`)).json()) as {
        model_stats: { inference_stats: { success: { count: number } } }[];
      };
      return j.model_stats[0]?.inference_stats.success.count ?? 0;
    };
    assert.ok((await stats('slow_b')) >= 1, 'the branch whose output was not asked for ran too');
  });

  void it('fails a request with the failing step named, and keeps serving', async () => {
    const r = await postJson(`${t.base}/v2/models/fails_inside/infer`, {
      inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }],
    });
    assert.equal(r.status, 500);
    assert.match(r.json.error, /^in ensemble 'fails_inside', step 0 \(model 'failing_run'\): /);
    const bad = await postJson(`${t.base}/v2/models/simple_twice/infer`, {
      inputs: [{ name: 'A', datatype: 'INT32', shape: [1, 16], data: [...range(1)] }],
    });
    assert.equal(bad.status, 400, 'the ensemble validates its own inputs first');
    assert.match(bad.json.error, /expected 2 inputs but got 1 inputs for model 'simple_twice'/);
  });

  void it('refuses to load an ensemble whose steps do not fit their models', async () => {
    const r = await postJson(`${t.base}/v2/repository/models/mismatch/load`, {});
    assert.equal(r.status, 400);
    assert.equal(
      r.json.error,
      "failed to load 'mismatch', ensemble 'mismatch': ensemble tensor 'A' is FP32 [-1,16] from ensemble input 'A', but input 'INPUT0' of step 0 (model 'simple') takes INT32 [-1,16]",
    );
  });

  void it('is ready only while the models of its steps are', async () => {
    const ready = async (m: string) => (await fetch(`${t.base}/v2/models/${m}/ready`)).status;
    assert.equal(await ready('simple_twice'), 200);
    assert.equal((await postJson(`${t.base}/v2/repository/models/simple/unload`, {})).status, 200);
    assert.equal(await ready('simple_twice'), 503);
    const r = await postJson(`${t.base}/v2/models/simple_twice/infer`, {
      inputs: [
        { name: 'A', datatype: 'INT32', shape: [1, 16], data: [...range(1)] },
        { name: 'B', datatype: 'INT32', shape: [1, 16], data: [...range(1)] },
      ],
    });
    assert.equal(r.status, 503);
    assert.match(r.json.error, /^in ensemble 'simple_twice', step 0 \(model 'simple'\)/);
    assert.equal((await postJson(`${t.base}/v2/repository/models/simple/load`, {})).status, 200);
    assert.equal(await ready('simple_twice'), 200);
  });

  void it('unloads the ensembles naming a model with unload_dependents', async () => {
    const unload = await postJson(`${t.base}/v2/repository/models/simple/unload`, {
      parameters: { unload_dependents: true },
    });
    assert.equal(unload.status, 200);
    const index = await postJson(`${t.base}/v2/repository/index`, {});
    const row = (n: string) =>
      (index.json as { name: string; state: string; reason: string }[]).find((r) => r.name === n);
    assert.equal(row('simple_twice')?.state, 'UNAVAILABLE');
    assert.equal(row('slow_pair')?.state, 'READY', 'an ensemble not naming it stays');
    // Loading the ensemble loads the model its steps name again.
    const load = await postJson(`${t.base}/v2/repository/models/simple_twice/load`, {});
    assert.equal(load.status, 200, JSON.stringify(load.json));
    assert.equal((await fetch(`${t.base}/v2/models/simple/ready`)).status, 200);
  });
});
