// End to end on the bundled repository: a real server on an ephemeral port, real workers and ORT
// sessions; answers compared with JS references.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mlpReference } from '../helpers/mlp-reference.js';
import { MODEL_REPOSITORY } from '../helpers/paths.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

// Each front end, plus the worker's copy path forced on: on Node 22+ the default reads shared
// memory directly, so both input paths run end to end in CI (on Node 20 both rows copy). The last
// row hands runs to the workers as piscina tasks instead of over the doorbell.
const VARIANTS = [
  { frontEnd: 'node', disableSabTensors: false, disableDoorbell: false },
  { frontEnd: 'auto', disableSabTensors: false, disableDoorbell: false },
  { frontEnd: 'node', disableSabTensors: true, disableDoorbell: false },
  { frontEnd: 'auto', disableSabTensors: false, disableDoorbell: true },
] as const;

function simpleInputs(seed: number): { a: number[]; b: number[] } {
  const a = Array.from({ length: 16 }, (_, i) => seed * 31 + i);
  const b = Array.from({ length: 16 }, (_, i) => (seed % 7) - i * 3);
  return { a, b };
}

for (const { frontEnd, disableSabTensors, disableDoorbell } of VARIANTS) {
  const title =
    `--http-front-end=${frontEnd}${disableSabTensors ? ' --disable-sab-tensors' : ''}` +
    (disableDoorbell ? ' --disable-doorbell' : '');
  void describe(`serving the bundled repository (${title})`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({
        modelRepositories: [MODEL_REPOSITORY],
        httpFrontEnd: frontEnd,
        disableSabTensors,
        disableDoorbell,
      });
    });
    after(async () => {
      await t.close();
    });

    void it('reports live and ready, and server metadata', async () => {
      assert.equal((await fetch(`${t.base}/v2/health/live`)).status, 200);
      assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
      const meta = (await (await fetch(`${t.base}/v2`)).json()) as any;
      assert.equal(meta.name, 'infernode');
      assert.ok(meta.extensions.includes('binary_tensor_data'));
      for (const m of ['simple', 'mlp', 'identity_bytes', 'addsub_fp32']) {
        assert.equal((await fetch(`${t.base}/v2/models/${m}/ready`)).status, 200, m);
      }
    });

    void it('returns model metadata with the batch dim as -1', async () => {
      const meta = (await (await fetch(`${t.base}/v2/models/simple`)).json()) as any;
      assert.deepEqual(meta.inputs, [
        { name: 'INPUT0', datatype: 'INT32', shape: [-1, 16] },
        { name: 'INPUT1', datatype: 'INT32', shape: [-1, 16] },
      ]);
      assert.deepEqual(meta.versions, ['1']);
      assert.equal(meta.platform, 'onnxruntime_onnx');
    });

    void it('completes addsub_fp32 (no config.pbtxt) from the ONNX model', async () => {
      const cfg = (await (await fetch(`${t.base}/v2/models/addsub_fp32/config`)).json()) as any;
      assert.equal(cfg.name, 'addsub_fp32');
      assert.equal(cfg.max_batch_size, 4);
      assert.ok(cfg.dynamic_batching !== undefined);
      assert.deepEqual(
        cfg.input.map((i: any) => [i.name, i.data_type]),
        [
          ['INPUT0', 'TYPE_FP32'],
          ['INPUT1', 'TYPE_FP32'],
        ],
      );
    });

    void it('answers simple over JSON with the right sums and differences', async () => {
      const { a, b } = simpleInputs(3);
      const r = await postJson(`${t.base}/v2/models/simple/infer`, {
        id: 'req-1',
        inputs: [
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: a },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: b },
        ],
      });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(r.json.model_name, 'simple');
      assert.equal(r.json.model_version, '1');
      assert.equal(r.json.id, 'req-1');
      const out = Object.fromEntries(r.json.outputs.map((o: any) => [o.name, o]));
      assert.deepEqual(out.OUTPUT0.shape, [1, 16]);
      assert.equal(out.OUTPUT0.datatype, 'INT32');
      assert.deepEqual(
        out.OUTPUT0.data,
        a.map((x, i) => x + (b[i] as number)),
      );
      assert.deepEqual(
        out.OUTPUT1.data,
        a.map((x, i) => x - (b[i] as number)),
      );
    });

    void it('answers simple over the binary tensor extension', async () => {
      const a = Int32Array.from({ length: 32 }, (_, i) => i * 5 - 40);
      const b = Int32Array.from({ length: 32 }, (_, i) => 1000 - i);
      const header = Buffer.from(
        JSON.stringify({
          inputs: [
            {
              name: 'INPUT0',
              datatype: 'INT32',
              shape: [2, 16],
              parameters: { binary_data_size: 128 },
            },
            {
              name: 'INPUT1',
              datatype: 'INT32',
              shape: [2, 16],
              parameters: { binary_data_size: 128 },
            },
          ],
          outputs: [{ name: 'OUTPUT1', parameters: { binary_data: true } }, { name: 'OUTPUT0' }],
        }),
      );
      const res = await fetch(`${t.base}/v2/models/simple/infer`, {
        method: 'POST',
        headers: {
          'content-type': 'application/octet-stream',
          'inference-header-content-length': String(header.length),
        },
        body: Buffer.concat([header, Buffer.from(a.buffer), Buffer.from(b.buffer)]),
      });
      assert.equal(res.status, 200);
      const body = Buffer.from(await res.arrayBuffer());
      const hlen = Number(res.headers.get('inference-header-content-length'));
      const json = JSON.parse(body.subarray(0, hlen).toString('utf8'));
      assert.deepEqual(
        json.outputs.map((o: any) => o.name),
        ['OUTPUT1', 'OUTPUT0'],
      );
      const o1 = json.outputs[0];
      assert.equal(o1.parameters.binary_data_size, 128);
      const diff = new Int32Array(
        body.buffer.slice(body.byteOffset + hlen, body.byteOffset + hlen + 128),
      );
      assert.deepEqual(
        [...diff],
        [...a].map((x, i) => x - (b[i] as number)),
      );
      assert.deepEqual(
        json.outputs[1].data,
        [...a].map((x, i) => x + (b[i] as number)),
      );
    });

    void it('answers mlp like the JS reference, rows kept apart', async () => {
      const rows = 3;
      const x = Float32Array.from({ length: rows * 784 }, (_, i) => Math.sin(i * 0.37) * 0.9);
      const r = await postJson(`${t.base}/v2/models/mlp/infer`, {
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [rows, 784], data: [...x] }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const out = r.json.outputs[0];
      assert.deepEqual(out.shape, [rows, 10]);
      for (let row = 0; row < rows; row++) {
        const ref = mlpReference(x.subarray(row * 784, (row + 1) * 784));
        const scale = Math.max(...[...ref].map(Math.abs));
        for (let k = 0; k < 10; k++) {
          const got = out.data[row * 10 + k] as number;
          assert.ok(Math.abs(got - (ref[k] as number)) <= 1e-4 * scale + 1e-6, `row ${row} k ${k}`);
        }
      }
    });

    void it('round-trips BYTES through identity_bytes', async () => {
      const data = ['hello', 'wörld', '', '😀 emoji'];
      const r = await postJson(`${t.base}/v2/models/identity_bytes/infer`, {
        inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [2, 2], data }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.deepEqual(r.json.outputs[0].data, data);
      assert.deepEqual(r.json.outputs[0].shape, [2, 2]);
    });

    void it('keeps 64 concurrent requests apart', async () => {
      const results = await Promise.all(
        Array.from({ length: 64 }, async (_, k) => {
          const { a, b } = simpleInputs(k);
          const r = await postJson(`${t.base}/v2/models/simple/infer`, {
            inputs: [
              { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: a },
              { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: b },
            ],
            outputs: [{ name: 'OUTPUT0' }],
          });
          return { r, a, b };
        }),
      );
      for (const { r, a, b } of results) {
        assert.equal(r.status, 200);
        assert.equal(r.json.outputs.length, 1);
        assert.deepEqual(
          r.json.outputs[0].data,
          a.map((x, i) => x + (b[i] as number)),
        );
      }
    });

    void it('counts requests in /stats and in Prometheus metrics', async () => {
      const stats = (await (await fetch(`${t.base}/v2/models/simple/stats`)).json()) as any;
      const s = stats.model_stats[0];
      assert.equal(s.name, 'simple');
      assert.equal(s.version, '1');
      assert.ok(s.inference_stats.success.count >= 66);
      assert.ok(s.execution_count >= 66);
      const metrics = await (await fetch(`${t.metricsBase}/metrics`)).text();
      const line = metrics
        .split('\n')
        .find((l) => l.startsWith('nv_inference_request_success{model="simple",version="1"}'));
      assert.ok(line !== undefined, 'nv_inference_request_success for simple');
      assert.ok(Number(line.split(' ')[1]) >= 66);
      assert.match(
        metrics,
        /infernode_request_duration_seconds_bucket\{le="0.001",model="simple",version="1"\}/,
      );
    });
  });
}
