// The `infernode` command as an operator runs it: flags, exit codes, and SIGTERM draining
// in-flight requests (reliability table rows 1, 2, 5 and 6).

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { runCli, spawnServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';

const slowRequest = (row: number) => ({
  inputs: [
    {
      name: 'INPUT0',
      datatype: 'FP32',
      shape: [1, 1024],
      data: Array.from({ length: 1024 }, (_, i) => ((i + row) % 13) / 13 - 0.5),
    },
  ],
});

void describe('infernode command', () => {
  let repo: string;
  let badRepo: string;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'slow_fp32');
    await copyModel(repo, 'simple');
    badRepo = await tempRepository();
    await copyModel(badRepo, 'simple');
    await copyModel(badRepo, 'bad_truncated');
  });
  after(async () => {
    await rm(repo, { recursive: true, force: true });
    await rm(badRepo, { recursive: true, force: true });
  });

  void it('prints help and rejects unknown flags with exit code 2', async () => {
    const help = runCli(['--help']);
    assert.equal(await help.exited, 0);
    assert.ok(help.lines.some((l) => l.includes('--model-repository')));
    const bad = runCli(['--model-repository=x', '--no-such-flag']);
    assert.equal(await bad.exited, 2);
    assert.ok(bad.lines.some((l) => l.includes('unknown flag --no-such-flag')));
    const missing = runCli([]);
    assert.equal(await missing.exited, 2);
  });

  void it('exits non-zero when a model fails to load and --exit-on-error is on (default)', async () => {
    const run = runCli([`--model-repository=${badRepo}`, '--http-port=0', '--metrics-port=0']);
    assert.equal(await run.exited, 1);
    assert.ok(run.lines.some((l) => l.includes('bad_truncated')));
  });

  void it('drains in-flight requests on SIGTERM, refuses new connections, exits 0', async () => {
    const s = await spawnServer([`--model-repository=${repo}`, '--exit-timeout-secs=20']);
    const inflight = Array.from({ length: 6 }, (_, k) =>
      fetch(`${s.base}/v2/models/slow_fp32/infer`, {
        method: 'POST',
        body: JSON.stringify(slowRequest(k)),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
    );
    await new Promise((r) => setTimeout(r, 300));
    s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    const late = await fetch(`${s.base}/v2/health/ready`).then(
      (r) => r.status,
      () => 'refused',
    );
    assert.ok(late === 'refused' || late === 503, `new request after SIGTERM: ${late}`);
    const results = await Promise.all(inflight);
    for (const r of results) {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.outputs[0].shape, [1, 1024]);
    }
    assert.equal(await s.exited, 0);
    assert.equal(s.lines.filter((l) => l.includes('drain started')).length, 1);
  });

  void it('bounds the drain with --exit-timeout-secs and answers or drops every client', async () => {
    const s = await spawnServer([`--model-repository=${repo}`, '--exit-timeout-secs=1']);
    const inflight = Array.from({ length: 40 }, (_, k) =>
      fetch(`${s.base}/v2/models/slow_fp32/infer`, {
        method: 'POST',
        body: JSON.stringify(slowRequest(k)),
      }).then(
        (r) => r.status,
        () => 'dropped',
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    const code = await s.exited;
    const elapsed = Date.now() - t0;
    assert.notEqual(code, 0, 'a timed-out drain does not report success');
    assert.ok(elapsed < 10_000, `exited after ${elapsed} ms`);
    const outcomes = await Promise.all(inflight);
    assert.ok(
      outcomes.some((o) => o === 200),
      'requests already running completed',
    );
    assert.ok(
      outcomes.some((o) => o !== 200),
      'the rest did not complete',
    );
  });

  void it('a second SIGTERM exits at once', async () => {
    const s = await spawnServer([`--model-repository=${repo}`, '--exit-timeout-secs=30']);
    const inflight = Array.from({ length: 30 }, (_, k) =>
      fetch(`${s.base}/v2/models/slow_fp32/infer`, {
        method: 'POST',
        body: JSON.stringify(slowRequest(k)),
      }).then(
        (r) => r.status,
        () => 'dropped',
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    s.child.kill('SIGTERM');
    const code = await s.exited;
    assert.notEqual(code, 0);
    await Promise.all(inflight);
  });
});
