// --trace-stages end to end: a real server times each HTTP inference request stage by stage,
// including the worker's own stamps, and serves the table at GET /v2/debug/stages; without the
// flag the route does not exist.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import path from 'node:path';
import { MOVE_MIN_BYTES } from '../../src/memory/movable-buffers.js';
import { MODEL_REPOSITORY, TEST_FIXTURES } from '../helpers/paths.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { STAGES } from '../../src/trace/stage-trace.js';
import type { StageTable } from '../../src/trace/stage-recorder.js';

const SIMPLE = {
  inputs: [
    {
      name: 'INPUT0',
      datatype: 'INT32',
      shape: [1, 16],
      data: Array.from({ length: 16 }, () => 1),
    },
    {
      name: 'INPUT1',
      datatype: 'INT32',
      shape: [1, 16],
      data: Array.from({ length: 16 }, () => 2),
    },
  ],
};

async function stages(base: string, query = ''): Promise<StageTable> {
  const res = await fetch(`${base}/v2/debug/stages${query}`);
  assert.equal(res.status, 200);
  return (await res.json()) as StageTable;
}

for (const frontEnd of ['node', 'auto'] as const) {
  void describe(`--trace-stages (--http-front-end=${frontEnd})`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({
        modelRepositories: [MODEL_REPOSITORY],
        httpFrontEnd: frontEnd,
        traceStages: true,
      });
    });
    after(async () => {
      await t.close();
    });

    void it('times every stage of an inference request, worker stages included', async () => {
      await stages(t.base, '?reset=true');
      for (let i = 0; i < 3; i++) {
        const r = await postJson(`${t.base}/v2/models/simple/infer`, SIMPLE);
        assert.equal(r.status, 200);
      }
      const table = await stages(t.base);
      assert.equal(table.requests, 3);
      assert.deepEqual(
        table.stages.map((s) => s.stage),
        [...STAGES.slice(1), 'total'],
      );
      for (const row of table.stages) {
        assert.equal(row.count, 3, `stage ${row.stage}`);
        assert.ok(row.p50Us >= 0 && row.p99Us >= row.p50Us, `stage ${row.stage}`);
      }
      const total = table.stages.find((s) => s.stage === 'total');
      const run = table.stages.find((s) => s.stage === 'run-end');
      assert.ok(total !== undefined && run !== undefined && total.p50Us > run.p50Us);
    });

    void it('clears the table on ?reset=true after serving it', async () => {
      await postJson(`${t.base}/v2/models/simple/infer`, SIMPLE);
      assert.ok((await stages(t.base, '?reset=true')).requests >= 1);
      assert.equal((await stages(t.base)).requests, 0);
    });
  });
}

void describe('--trace-stages on a lone large request (its inputs move to the worker)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      modelRepositories: [path.join(TEST_FIXTURES, 'repository')],
      modelControlMode: 'explicit',
      loadModels: ['identity_fp32'],
      traceStages: true,
    });
  });
  after(async () => {
    await t.close();
  });

  void it('still has the worker stages', async () => {
    await stages(t.base, '?reset=true');
    const elements = MOVE_MIN_BYTES / 4 + 16;
    const r = await postJson(`${t.base}/v2/models/identity_fp32/infer`, {
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'FP32',
          shape: [1, elements],
          data: new Array(elements).fill(1),
        },
      ],
      outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
    });
    assert.equal(r.status, 200);
    const table = await stages(t.base);
    assert.equal(table.requests, 1);
    for (const stage of ['worker-start', 'run-start', 'run-end', 'worker-end', 'resume'] as const) {
      assert.equal(table.stages.find((s) => s.stage === stage)?.count, 1, `stage ${stage}`);
    }
  });
});

void describe('without --trace-stages', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ modelRepositories: [MODEL_REPOSITORY] });
  });
  after(async () => {
    await t.close();
  });

  void it('has no debug route', async () => {
    const res = await fetch(`${t.base}/v2/debug/stages`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
});
