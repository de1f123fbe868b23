// The process-wide thread budget as an operator sees it: with
// --backend-config=onnxruntime,enable-global-threadpool=1,intra_op_thread_count=N the start-up log
// lists every session's threads, and their intra-op sum never exceeds N.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { postJson, startTestServer } from '../helpers/test-server.js';

/** `  mlp v1 mlp_0 (KIND_CPU ×2): intra_op=1 inter_op=1 [global-share]` -> sessions x threads. */
function budgetLines(logs: readonly string[]): { sessions: number; intra: number }[] {
  return logs
    .map((l) => (JSON.parse(l) as { msg: string }).msg)
    .map((m) => /×(\d+)\): intra_op=(\d+) inter_op=(\d+)/.exec(m))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ sessions: Number(m[1]), intra: Number(m[2]) }));
}

void describe('thread budget', () => {
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copyModel(repo, 'mlp');
  });
  after(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  for (const n of [3, 5]) {
    void it(`global pool of ${n} intra-op threads is split across every session`, async () => {
      const t = await startTestServer({
        modelRepositories: [repo],
        backendConfig: [
          'onnxruntime,enable-global-threadpool=1',
          `onnxruntime,intra_op_thread_count=${n}`,
          'onnxruntime,inter_op_thread_count=1',
        ],
      });
      try {
        const lines = budgetLines(t.logs);
        assert.equal(lines.length, 2, t.logs.join('\n'));
        const total = lines.reduce((a, l) => a + l.sessions * l.intra, 0);
        assert.ok(total <= n, `sum of intra-op threads ${total} > ${n}`);
        assert.ok(lines.every((l) => l.intra >= 1));
        // and the models serve
        const r = await postJson(`${t.base}/v2/models/simple/infer`, {
          inputs: [
            { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(5) },
            { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(2) },
          ],
        });
        assert.equal(r.status, 200);
      } finally {
        await t.close();
      }
    });
  }

  void it('a global pool smaller than the number of sessions fails the models with the numbers', async () => {
    const t = await startTestServer({
      modelRepositories: [repo],
      backendConfig: ['onnxruntime,enable-global-threadpool=1,intra_op_thread_count=2'],
    });
    try {
      assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 503);
      const index = (await postJson(`${t.base}/v2/repository/index`, {})).json as any[];
      for (const e of index) {
        assert.equal(e.state, 'UNAVAILABLE');
        assert.match(e.reason, /2/);
      }
    } finally {
      await t.close();
    }
  });
});
