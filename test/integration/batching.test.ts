// Dynamic batching end to end: 64 concurrent clients with distinct inputs against real workers;
// every answer must equal its own request's reference (no cross-talk between the rows of a
// batch), and /stats and /metrics must show far fewer executions than inferences.

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { mlpReference } from '../helpers/mlp-reference.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';

const CLIENTS = 64;
const ROUNDS = 3;

function mlpInput(client: number, round: number): Float32Array {
  return Float32Array.from({ length: 784 }, (_, i) =>
    Math.sin(client * 7.1 + round * 3.3 + i * 0.01),
  );
}

/** Runs `task(client, round)` from CLIENTS concurrent clients, ROUNDS requests each in turn. */
async function clients(task: (client: number, round: number) => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let r = 0; r < ROUNDS; r++) await task(c, r);
    }),
  );
}

async function stats(base: string, model: string): Promise<any> {
  const s = (await (await fetch(`${base}/v2/models/${model}/stats`)).json()) as any;
  return s.model_stats[0];
}

void describe('dynamic batching under 64 concurrent clients', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    // mlp with two instances and a 20 ms queue delay: without a delay, whether 64 clients' requests
    // meet in the queue depends on how fast this machine's workers drain it (on Node 24, where they
    // read shared memory directly, they often did not); with it, batching is what the config asks.
    const mlp = await copyModel(repo, 'mlp');
    const mlpConfig = path.join(mlp, 'config.pbtxt');
    await writeFile(
      mlpConfig,
      (await readFile(mlpConfig, 'utf8')).replace(
        'dynamic_batching { }',
        'dynamic_batching { max_queue_delay_microseconds: 20000 }',
      ),
    );
    // simple and identity_bytes with batching switched on: exact integer and BYTES answers.
    for (const name of ['simple', 'identity_bytes']) {
      const dir = await copyModel(repo, name);
      const file = path.join(dir, 'config.pbtxt');
      await writeFile(file, `${await readFile(file, 'utf8')}\ndynamic_batching { }\n`);
    }
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it("mlp: every response equals its own request's reference", async () => {
    const before = await stats(t.base, 'mlp');
    await clients(async (c, r) => {
      const x = mlpInput(c, r);
      const res = await postJson(`${t.base}/v2/models/mlp/infer`, {
        id: `${c}/${r}`,
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: [...x] }],
      });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.equal(res.json.id, `${c}/${r}`);
      const out = res.json.outputs[0];
      assert.deepEqual(out.shape, [1, 10]);
      const ref = mlpReference(x);
      out.data.forEach((v: number, i: number) =>
        assert.ok(
          Math.abs(v - (ref[i] as number)) < 1e-3,
          `client ${c} round ${r} [${i}]: ${v} vs ${ref[i]}`,
        ),
      );
    });
    const s = await stats(t.base, 'mlp');
    const inferences = s.inference_count - before.inference_count;
    const executions = s.execution_count - before.execution_count;
    assert.equal(inferences, CLIENTS * ROUNDS);
    assert.ok(
      executions * 2 <= inferences,
      `expected batching: ${executions} executions for ${inferences} inferences`,
    );
    assert.ok(
      s.batch_stats.some((b: any) => b.batch_size > 1),
      JSON.stringify(s.batch_stats),
    );
    assert.equal(
      s.inference_stats.success.count - before.inference_stats.success.count,
      inferences,
    );
    assert.equal(s.inference_stats.queue.count - before.inference_stats.queue.count, inferences);
  });

  void it('simple: exact sums and differences, over JSON and binary, mixed batch sizes', async () => {
    await clients(async (c, r) => {
      const rows = 1 + ((c + r) % 3);
      const a = Array.from({ length: rows * 16 }, (_, i) => c * 1000 + r * 100 + i);
      const b = Array.from({ length: rows * 16 }, (_, i) => (c % 9) * 7 - i);
      const sums = a.map((x, i) => x + (b[i] as number));
      const diffs = a.map((x, i) => x - (b[i] as number));
      if ((c + r) % 2 === 0) {
        const res = await postJson(`${t.base}/v2/models/simple/infer`, {
          inputs: [
            { name: 'INPUT1', datatype: 'INT32', shape: [rows, 16], data: b },
            { name: 'INPUT0', datatype: 'INT32', shape: [rows, 16], data: a },
          ],
          outputs: [{ name: 'OUTPUT1' }, { name: 'OUTPUT0' }],
        });
        assert.equal(res.status, 200, JSON.stringify(res.json));
        const [o1, o0] = res.json.outputs;
        assert.deepEqual([o1.name, o0.name], ['OUTPUT1', 'OUTPUT0']);
        assert.deepEqual(o0.shape, [rows, 16]);
        assert.deepEqual(o0.data, sums);
        assert.deepEqual(o1.data, diffs);
        return;
      }
      // The binary tensor extension both ways: the output bytes are the batch output's view.
      const size = rows * 16 * 4;
      const header = Buffer.from(
        JSON.stringify({
          inputs: ['INPUT0', 'INPUT1'].map((name) => ({
            name,
            datatype: 'INT32',
            shape: [rows, 16],
            parameters: { binary_data_size: size },
          })),
          outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
        }),
      );
      const res = await fetch(`${t.base}/v2/models/simple/infer`, {
        method: 'POST',
        headers: {
          'content-type': 'application/octet-stream',
          'inference-header-content-length': String(header.length),
        },
        body: Buffer.concat([
          header,
          Buffer.from(Int32Array.from(a).buffer),
          Buffer.from(Int32Array.from(b).buffer),
        ]),
      });
      assert.equal(res.status, 200);
      const body = Buffer.from(await res.arrayBuffer());
      const hlen = Number(res.headers.get('inference-header-content-length'));
      const json = JSON.parse(body.subarray(0, hlen).toString('utf8'));
      assert.deepEqual(json.outputs[0].shape, [rows, 16]);
      assert.equal(body.length, hlen + size);
      const out = new Int32Array(
        body.buffer.slice(body.byteOffset + hlen, body.byteOffset + hlen + size),
      );
      assert.deepEqual([...out], sums);
    });
    const s = await stats(t.base, 'simple');
    assert.ok(s.execution_count < s.inference_count, JSON.stringify(s));
  });

  void it('identity_bytes: each client gets its own strings back', async () => {
    await clients(async (c, r) => {
      // Two lengths of the variable dim: those batch only with their own kind.
      const strings = Array.from(
        { length: 1 + (c % 2) },
        (_, i) => `client ${c} round ${r} #${i} ${'x'.repeat(c)}`,
      );
      const res = await postJson(`${t.base}/v2/models/identity_bytes/infer`, {
        inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [1, strings.length], data: strings }],
      });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.deepEqual(res.json.outputs[0].shape, [1, strings.length]);
      assert.deepEqual(res.json.outputs[0].data, strings);
    });
  });

  void it('exports the batch-size histogram next to inference and execution counts', async () => {
    const text = await (await fetch(`${t.metricsBase}/metrics`)).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    const count = value(/^infernode_batch_size_count\{model="mlp",version="1"\} (\d+)/m);
    const sum = value(/^infernode_batch_size_sum\{model="mlp",version="1"\} (\d+)/m);
    const execs = value(/^nv_inference_exec_count\{model="mlp",version="1"\} (\d+)/m);
    const infers = value(/^nv_inference_count\{model="mlp",version="1"\} (\d+)/m);
    assert.equal(count, execs);
    assert.equal(sum, infers);
    assert.ok(execs < infers);
    assert.match(text, /^infernode_batch_size_bucket\{le="1",model="mlp",version="1"\} \d+/m);
    assert.match(text, /^nv_inference_pending_request_count\{model="mlp",version="1"\} 0$/m);
  });
});
