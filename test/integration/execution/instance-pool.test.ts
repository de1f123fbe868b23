// The instance pool with real piscina workers and real ORT sessions on generated models: concurrent
// correctness on `simple` over both shared-memory input paths, `mlp` against a plain-JS forward
// pass, request errors, and close() waiting for in-flight runs.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mlpWeights } from '../../../scripts/onnx/mlp-weights.js';
import { SLOW_WIDTH } from '../../../scripts/onnx/fixture-models.js';
import type { RunResponse } from '../../../src/execution/messages.js';
import { InstancePool } from '../../../src/execution/instance-pool.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import { detectSabTensors } from '../../../src/execution/onnxruntime/sab-capability.js';
import { typedView } from '../../../src/memory/views.js';
import type { TensorDescriptor } from '../../../src/tensor/tensor.js';
import { bytesOf, CPU_PLAN, generateModels, inputBlock } from './generated-models.js';
import type { GeneratedRepos } from './generated-models.js';

let repos: GeneratedRepos;
let sabSupported: boolean;

before(async () => {
  repos = await generateModels();
  sabSupported = await detectSabTensors();
});
after(async () => {
  await repos.remove();
});

function outputs(r: RunResponse): readonly TensorDescriptor[] {
  if (!r.ok) assert.fail(`run failed: ${r.error.code} ${r.error.message}`);
  return r.outputs;
}

/** Request k of the stress test: a batch of 1-4 rows whose values depend on k. */
function simpleRequest(k: number) {
  const rows = 1 + (k % 4);
  const a = Int32Array.from({ length: rows * 16 }, (_, i) => k * 1000 + i);
  const b = Int32Array.from({ length: rows * 16 }, (_, i) => (k % 7) * 3 - i);
  return { rows, a, b };
}

async function stressSimple(sabTensors: boolean): Promise<void> {
  const pool = await InstancePool.start({
    backend: ortWorkers(),
    model: 'simple',
    version: 1,
    modelPath: repos.bundled('simple'),
    groups: [{ instance: 'simple_0', count: 2, plan: CPU_PLAN }],
    sabTensors,
  });
  try {
    assert.equal(pool.capacity, 2);
    assert.ok(pool.ready);
    const requests = Array.from({ length: 200 }, (_, k) => simpleRequest(k));
    const responses = await Promise.all(
      requests.map(({ rows, a, b }) =>
        pool.run({
          inputs: inputBlock([
            { name: 'INPUT0', datatype: 'INT32', shape: [rows, 16], bytes: bytesOf(a) },
            { name: 'INPUT1', datatype: 'INT32', shape: [rows, 16], bytes: bytesOf(b) },
          ]),
          outputs: ['OUTPUT0', 'OUTPUT1'],
        }),
      ),
    );
    responses.forEach((r, k) => {
      const { rows, a, b } = requests[k] ?? assert.fail('missing request');
      const [sum, diff] = outputs(r);
      assert.deepEqual(sum?.shape, [rows, 16]);
      assert.equal(sum?.datatype, 'INT32');
      const expectSum = Int32Array.from(a, (x, i) => x + (b[i] ?? 0));
      const expectDiff = Int32Array.from(a, (x, i) => x - (b[i] ?? 0));
      assert.deepEqual(typedView(sum ?? assert.fail('no OUTPUT0')), expectSum, `request ${k}`);
      assert.deepEqual(typedView(diff ?? assert.fail('no OUTPUT1')), expectDiff, `request ${k}`);
      // Both outputs of one reply share one block, which is not any other reply's.
      assert.equal(sum?.buffer, diff?.buffer);
    });
    assert.equal(new Set(responses.map((r) => outputs(r)[0]?.buffer)).size, 200);
    assert.equal(pool.inFlight, 0);
  } finally {
    await pool.close();
  }
}

void describe('InstancePool on simple (2 instances, 200 concurrent requests)', () => {
  void it('copy path (inputs copied into worker-local memory): every answer is its own', async () => {
    await stressSimple(false);
  });

  void it('direct path (ORT wraps the shared memory): every answer is its own', async (t) => {
    if (!sabSupported) {
      t.skip('this onnxruntime-node rejects SharedArrayBuffer-backed tensors (Node 20)');
      return;
    }
    await stressSimple(true);
  });

  void it('forcing the direct path where ORT rejects it fails each run with INFER_FAILED', async (t) => {
    if (sabSupported) {
      t.skip('this runtime accepts SharedArrayBuffer-backed tensors');
      return;
    }
    const pool = await InstancePool.start({
      backend: ortWorkers(),
      model: 'simple',
      version: 1,
      modelPath: repos.bundled('simple'),
      groups: [{ instance: 'simple_0', count: 1, plan: CPU_PLAN }],
      sabTensors: true,
    });
    try {
      const { rows, a, b } = simpleRequest(1);
      const r = await pool.run({
        inputs: inputBlock([
          { name: 'INPUT0', datatype: 'INT32', shape: [rows, 16], bytes: bytesOf(a) },
          { name: 'INPUT1', datatype: 'INT32', shape: [rows, 16], bytes: bytesOf(b) },
        ]),
        outputs: [],
      });
      assert.deepEqual(r, {
        ok: false,
        error: { code: 'INFER_FAILED', message: 'Invalid argument' },
      });
    } finally {
      await pool.close();
    }
  });
});

/** Float64 forward pass over the generator's own weights: Gemm (x·W + b), ReLU between layers. */
function mlpReference(x: Float32Array, batch: number): Float64Array {
  let act = Float64Array.from(x);
  const layers = mlpWeights();
  layers.forEach((layer, l) => {
    const out = new Float64Array(batch * layer.outFeatures);
    for (let n = 0; n < batch; n++) {
      for (let o = 0; o < layer.outFeatures; o++) {
        let s = layer.bias[o] ?? 0;
        for (let i = 0; i < layer.inFeatures; i++) {
          s +=
            (act[n * layer.inFeatures + i] ?? 0) * (layer.weight[i * layer.outFeatures + o] ?? 0);
        }
        out[n * layer.outFeatures + o] = l < layers.length - 1 ? Math.max(0, s) : s;
      }
    }
    act = out;
  });
  return act;
}

void describe('InstancePool on mlp', () => {
  void it('matches a plain-JS forward pass over the same weights', async () => {
    const pool = await InstancePool.start({
      backend: ortWorkers(),
      model: 'mlp',
      version: 1,
      modelPath: repos.bundled('mlp'),
      groups: [{ instance: 'mlp_0', count: 1, plan: CPU_PLAN }],
      sabTensors: false,
    });
    try {
      const batch = 3;
      const x = Float32Array.from({ length: batch * 784 }, (_, i) => Math.sin(i * 0.37));
      const r = await pool.run({
        inputs: inputBlock([
          { name: 'INPUT0', datatype: 'FP32', shape: [batch, 784], bytes: bytesOf(x) },
        ]),
        outputs: ['OUTPUT0'],
      });
      const [y] = outputs(r);
      assert.deepEqual(y?.shape, [batch, 10]);
      const got = typedView(y ?? assert.fail('no output')) as Float32Array;
      const want = mlpReference(x, batch);
      got.forEach((v, i) => {
        const w = want[i] ?? NaN;
        assert.ok(Math.abs(v - w) <= 1e-4 * Math.max(1, Math.abs(w)), `[${i}] ${v} vs ${w}`);
      });
      if (r.ok) {
        for (const ns of Object.values(r.timing)) assert.ok(Number.isFinite(ns) && ns >= 0);
      }
    } finally {
      await pool.close();
    }
  });
});

void describe('InstancePool request errors', () => {
  void it('reports ORT failures as INFER_FAILED without file paths, and keeps serving', async () => {
    const pool = await InstancePool.start({
      backend: ortWorkers(),
      model: 'simple',
      version: 1,
      modelPath: repos.bundled('simple'),
      groups: [{ instance: 'simple_0', count: 1, plan: CPU_PLAN }],
      sabTensors: false,
    });
    try {
      const a = new Int32Array(16);
      const wrongName = await pool.run({
        inputs: inputBlock([
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
          { name: 'NOPE', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
        ]),
        outputs: ['OUTPUT0'],
      });
      assert.equal(wrongName.ok, false);
      if (!wrongName.ok) {
        assert.equal(wrongName.error.code, 'INFER_FAILED');
        assert.ok(!wrongName.error.message.includes(repos.root), wrongName.error.message);
      }
      const wrongType = await pool.run({
        inputs: inputBlock([
          {
            name: 'INPUT0',
            datatype: 'FP32',
            shape: [1, 16],
            bytes: bytesOf(new Float32Array(16)),
          },
          {
            name: 'INPUT1',
            datatype: 'FP32',
            shape: [1, 16],
            bytes: bytesOf(new Float32Array(16)),
          },
        ]),
        outputs: [],
      });
      assert.equal(wrongType.ok, false);
      if (!wrongType.ok) assert.match(wrongType.error.message, /tensor\(float\)/);
      // Empty `outputs` means every model output, in the model's order.
      const good = await pool.run({
        inputs: inputBlock([
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
        ]),
        outputs: [],
      });
      assert.deepEqual(
        outputs(good).map((o) => o.name),
        ['OUTPUT0', 'OUTPUT1'],
      );
    } finally {
      await pool.close();
    }
  });
});

void describe('InstancePool.close', () => {
  void it('lets in-flight runs finish before the workers go, then refuses new runs', async () => {
    const pool = await InstancePool.start({
      backend: ortWorkers(),
      model: 'slow_fp32',
      version: 1,
      modelPath: repos.fixture('slow_fp32'),
      groups: [{ instance: 'slow_fp32_0', count: 1, plan: CPU_PLAN }],
      sabTensors: false,
    });
    const order: string[] = [];
    const x = Float32Array.from({ length: 2 * SLOW_WIDTH }, (_, i) => (i % 13) / 13);
    const run = () =>
      pool
        .run({
          inputs: inputBlock([
            { name: 'INPUT0', datatype: 'FP32', shape: [2, SLOW_WIDTH], bytes: bytesOf(x) },
          ]),
          outputs: ['OUTPUT0'],
        })
        .then((r) => {
          order.push(r.ok ? 'run ok' : `run ${r.error.code}`);
          return r;
        });
    const runs = [run(), run()];
    assert.equal(pool.inFlight, 2);
    // Closing now must not terminate the worker inside session.run (that aborts the process).
    await pool.close().then(() => order.push('closed'));
    await Promise.all(runs);
    assert.deepEqual(order, ['run ok', 'run ok', 'closed']);
    assert.equal(pool.ready, false);
    const late = await run();
    assert.equal(late.ok, false);
    if (!late.ok) assert.equal(late.error.code, 'MODEL_NOT_READY');
  });
});
