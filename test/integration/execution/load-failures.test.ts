// Models that cannot load: a truncated or missing model file fails InstancePool.start with the
// worker's (path-free) message after every worker has reported; a GPU plan on a CPU-only install
// fails before any worker starts. The process keeps serving other models afterwards.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { buildInstanceGroupPlans } from '../../../src/execution/onnxruntime/build-session-plan.js';
import { InstancePool } from '../../../src/execution/instance-pool.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import { providerInventory } from '../../../src/execution/onnxruntime/provider-availability.js';
import { planThreadBudget } from '../../../src/execution/thread-budget.js';
import { modelConfig, ortOf } from '../../unit/execution/model-config-fixture.js';
import { bytesOf, CPU_PLAN, generateModels, inputBlock } from './generated-models.js';
import type { GeneratedRepos } from './generated-models.js';

let repos: GeneratedRepos;
before(async () => {
  repos = await generateModels();
});
after(async () => {
  await repos.remove();
});

function loadFailure(pattern: RegExp, root: string) {
  return (e: unknown) => {
    assert.ok(e instanceof InferenceServerError, String(e));
    assert.equal(e.code, 'MODEL_LOAD_FAILED');
    assert.match(e.message, pattern);
    assert.ok(!e.message.includes(root), `message leaks a path: ${e.message}`);
    return true;
  };
}

void describe('InstancePool.start failures', () => {
  void it('a truncated model file fails the load with ORT’s reason and no absolute path', async () => {
    await assert.rejects(
      InstancePool.start({
        backend: ortWorkers(),
        model: 'bad_truncated',
        version: 1,
        modelPath: repos.fixture('bad_truncated'),
        groups: [{ instance: 'bad_truncated_0', count: 2, plan: CPU_PLAN }],
      }),
      loadFailure(
        /^failed to load model "bad_truncated" version 1 instance bad_truncated_0: Load model from bad_truncated\/1\/model\.onnx failed:Protobuf parsing failed\.$/,
        repos.root,
      ),
    );
  });

  void it('a missing model file fails the load', async () => {
    await assert.rejects(
      InstancePool.start({
        backend: ortWorkers(),
        model: 'simple',
        version: 1,
        modelPath: repos.bundled('simple').replace('model.onnx', 'absent.onnx'),
        groups: [{ instance: 'simple_0', count: 1, plan: CPU_PLAN }],
      }),
      loadFailure(/simple\/1\/absent\.onnx .*File doesn't exist/, repos.root),
    );
  });

  void it('a KIND_GPU plan fails with PROVIDER_UNAVAILABLE before any worker starts', async (t) => {
    if (providerInventory().installed.has('cuda')) {
      t.skip('the CUDA provider is installed here');
      return;
    }
    const config = modelConfig({
      groups: [{ name: 'simple_0', kind: 'KIND_GPU', count: 1, gpus: [0] }],
    });
    const budget = planThreadBudget(
      [
        {
          model: 'simple',
          version: 1,
          groups: config.instance_group,
          params: ortOf(config),
        },
      ],
      { globalThreadPool: false, intraOpThreadCount: 0, interOpThreadCount: 0 },
      2,
    );
    await assert.rejects(
      InstancePool.start({
        backend: ortWorkers(),
        model: 'simple',
        version: 1,
        modelPath: repos.bundled('simple'),
        groups: buildInstanceGroupPlans(config, ortOf(config), 1, budget),
      }),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.code === 'PROVIDER_UNAVAILABLE' &&
        e.message.startsWith(
          'execution provider "cuda" is not installed in onnxruntime-node; on a GPU host either ' +
            'install it (npm pkg set allowScripts.onnxruntime-node=true --json && ' +
            'ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci --ignore-scripts=false), or use the WebGPU ' +
            'provider',
        ),
    );
  });

  void it('after failed loads, a good model still loads and serves', async () => {
    const pool = await InstancePool.start({
      backend: ortWorkers(),
      model: 'simple',
      version: 1,
      modelPath: repos.bundled('simple'),
      groups: [{ instance: 'simple_0', count: 1, plan: CPU_PLAN }],
    });
    try {
      const a = Int32Array.from({ length: 16 }, (_, i) => i);
      const r = await pool.run({
        inputs: inputBlock([
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], bytes: bytesOf(a) },
        ]),
        outputs: ['OUTPUT0'],
      });
      assert.equal(r.ok, true);
    } finally {
      await pool.close();
    }
  });
});
