// A worker that exits mid-task fails that task with WORKER_FAILED; piscina starts a replacement,
// the pool reports not-ready until the replacement has its session, then serves again.

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { InstancePool } from '../../../src/execution/instance-pool.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import { typedView } from '../../../src/memory/views.js';
import { bytesOf, CPU_PLAN, generateModels, inputBlock } from './generated-models.js';
import type { GeneratedRepos } from './generated-models.js';

const FAULTY_WORKER = fileURLToPath(new URL('./fixtures/faulty-worker.js', import.meta.url));

let repos: GeneratedRepos;
before(async () => {
  repos = await generateModels();
});
after(async () => {
  await repos.remove();
});

const ints = (name: string, values: Int32Array) => ({
  name,
  datatype: 'INT32' as const,
  shape: [1, 16],
  bytes: bytesOf(values),
});

void describe('worker exit', () => {
  void it('fails the task with WORKER_FAILED, flips readiness, and recovers', async () => {
    const messages: string[] = [];
    const pool = await InstancePool.start({
      model: 'simple',
      version: 1,
      modelPath: repos.bundled('simple'),
      groups: [{ instance: 'simple_0', count: 1, plan: CPU_PLAN }],
      sabTensors: false,
      backend: ortWorkers({ workerFile: FAULTY_WORKER }),
      logger: {
        info: (m) => messages.push(m),
        warn: (m) => messages.push(m),
        error: (m) => messages.push(m),
      },
    });
    try {
      const a = Int32Array.from({ length: 16 }, (_, i) => 100 - i);
      const died = await pool.run({
        inputs: inputBlock([ints('EXIT', a), ints('INPUT1', a)]),
        outputs: ['OUTPUT0'],
      });
      assert.equal(died.ok, false);
      if (!died.ok) {
        assert.equal(died.error.code, 'WORKER_FAILED');
        assert.match(died.error.message, /model "simple" version 1 exited during the request/);
      }
      // The replacement was started in the same event that failed the task, so it cannot have
      // reported yet: the pool is not ready until it does.
      assert.equal(pool.ready, false);
      await pool.whenReady();
      assert.ok(pool.ready);
      const r = await pool.run({
        inputs: inputBlock([ints('INPUT0', a), ints('INPUT1', a)]),
        outputs: ['OUTPUT0'],
      });
      if (!r.ok) assert.fail(r.error.message);
      assert.deepEqual(
        typedView(r.outputs[0] ?? assert.fail('no output')),
        a.map((x) => 2 * x),
      );
      assert.ok(
        messages.some((m) => /replacement instance of simple_0 is ready/.test(m)),
        messages.join('\n'),
      );
    } finally {
      await pool.close();
    }
  });
});
