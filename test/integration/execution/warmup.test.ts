// model_warmup runs inside each worker before it reports ready; a failing warmup fails the load.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { InstancePool } from '../../../src/execution/instance-pool.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import type { RunRequest } from '../../../src/execution/messages.js';
import { typedView } from '../../../src/memory/views.js';
import { bytesOf, CPU_PLAN, generateModels, inputBlock } from './generated-models.js';
import type { GeneratedRepos } from './generated-models.js';

let repos: GeneratedRepos;
before(async () => {
  repos = await generateModels();
});
after(async () => {
  await repos.remove();
});

const zeros = (name: string, datatype: 'INT32' | 'FP32') => ({
  name,
  datatype,
  shape: [2, 16],
  bytes: new Uint8Array(2 * 16 * 4),
});

void describe('warmup', () => {
  void it('a pool with a valid warmup starts ready and serves', async () => {
    const request: RunRequest = {
      inputs: inputBlock([zeros('INPUT0', 'INT32'), zeros('INPUT1', 'INT32')]),
      outputs: ['OUTPUT0'],
    };
    const pool = await InstancePool.start({
      backend: ortWorkers(),
      model: 'simple',
      version: 1,
      modelPath: repos.bundled('simple'),
      groups: [{ instance: 'simple_0', count: 2, plan: CPU_PLAN }],
      warmup: [{ name: 'zeros', count: 3, request }],
      sabTensors: false,
    });
    try {
      assert.ok(pool.ready);
      const a = Int32Array.from({ length: 16 }, (_, i) => i * i);
      const r = await pool.run({
        inputs: inputBlock([
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
        ]),
        outputs: ['OUTPUT1'],
      });
      if (!r.ok) assert.fail(r.error.message);
      assert.deepEqual(typedView(r.outputs[0] ?? assert.fail('no output')), new Int32Array(16));
    } finally {
      await pool.close();
    }
  });

  void it('a warmup the model rejects fails the load, naming the warmup', async () => {
    const request: RunRequest = {
      inputs: inputBlock([zeros('INPUT0', 'FP32'), zeros('INPUT1', 'FP32')]),
      outputs: ['OUTPUT0'],
    };
    await assert.rejects(
      InstancePool.start({
        backend: ortWorkers(),
        model: 'simple',
        version: 1,
        modelPath: repos.bundled('simple'),
        groups: [{ instance: 'simple_0', count: 1, plan: CPU_PLAN }],
        warmup: [{ name: 'wrong_type', count: 1, request }],
        sabTensors: false,
      }),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.code === 'MODEL_LOAD_FAILED' &&
        /instance simple_0: warmup "wrong_type" failed: Unexpected input data type/.test(e.message),
    );
  });
});
