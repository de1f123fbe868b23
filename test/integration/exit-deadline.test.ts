// The hard bound on a stop (src/cli/exit-deadline.ts), on the real `infernode` command. During a
// start-up load, a SIGTERM that arrives while a worker is inside InferenceSession.create must not
// wait for the load: the model is slow_fp32's graph made deep enough that creating its session
// (graph optimization) takes many times the timeout, about 17 s for 5,000 layers on the 2-core
// development machine. Once serving, a run that outlasts the timeout by more than the grace must
// not hold the process either.

import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { slowModel } from '../../scripts/onnx/fixture-models.js';
import { runCli, spawnServer } from '../helpers/spawn-server.js';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  SLOW_MAX_BATCH,
  slowModelConfig,
} from '../helpers/slow-model-timing.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { startTestServer } from '../helpers/test-server.js';
import { allQueued, logged } from '../helpers/wait-for.js';

const LAYERS = 5000;
const EXIT_TIMEOUT_SECS = 2;
/** The bound's own slack: the timer, the log line, the signal's delivery. */
const SLACK_MS = 1500;

void describe('--exit-timeout-secs during a start-up load', () => {
  void it('ends the process by the signal when the timeout runs out inside session creation', async () => {
    const repo = await tempRepository();
    const dir = path.join(repo, 'slow_create');
    await mkdir(path.join(dir, '1'), { recursive: true });
    await writeFile(path.join(dir, '1', 'model.onnx'), slowModel(LAYERS));
    await writeFile(path.join(dir, 'config.pbtxt'), slowModelConfig('slow_create'));
    const run = runCli([
      `--model-repository=${repo}`,
      '--http-address=127.0.0.1',
      '--http-port=0',
      '--metrics-port=0',
      '--grpc-port=0',
      `--exit-timeout-secs=${EXIT_TIMEOUT_SECS}`,
    ]);
    try {
      // The plan is logged before the workers start creating their sessions.
      await logged(run.lines, 'slow_create');
      const signalledAt = Date.now();
      run.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        run.exited,
        new Promise((resolve) => (timer = setTimeout(() => resolve('still running'), 60_000))),
      ]);
      clearTimeout(timer);
      const tookMs = Date.now() - signalledAt;
      const log = run.lines.join('\n');
      assert.ok(
        !run.lines.some((l) => l.includes('model version ready')),
        `the model loaded within the timeout, so this proves nothing: raise LAYERS\n${log}`,
      );
      assert.equal(outcome, 'SIGTERM', `ended by the signal it was sent:\n${log}`);
      assert.ok(
        tookMs <= EXIT_TIMEOUT_SECS * 1000 + SLACK_MS,
        `exited ${tookMs} ms after SIGTERM with --exit-timeout-secs=${EXIT_TIMEOUT_SECS}`,
      );
      assert.ok(run.lines.some((l) => l.includes('--exit-timeout-secs ran out during start-up')));
      const native = run.lines.filter((l) => /terminate called|Napi::Error|Aborted/.test(l));
      assert.deepEqual(native, [], 'no native abort');
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.exited;
      await rm(repo, { recursive: true, force: true });
    }
  });
});

void describe('--exit-timeout-secs once serving', () => {
  void it('ends the process by the signal 5 s after the timeout when a run outlasts both', async () => {
    const repo = await tempRepository();
    await copySlowModel(repo, 'slow_fp32');
    const probe = await startTestServer({ modelRepositories: [repo] });
    const timing = await measureSlowModel(probe, 'slow_fp32').finally(() => probe.close());
    // A run of about 15 s: well past the timeout plus the 5 s grace.
    const rows = Math.min(timing.rowsFor(15_000), SLOW_MAX_BATCH);
    const s = await spawnServer([`--model-repository=${repo}`, '--exit-timeout-secs=1']);
    try {
      // One runs, one waits behind it: the pending gauge shows both are on the server.
      const replies = [0, 1].map((seed) =>
        inferSlow(s.base, 'slow_fp32', rows, { seed }).catch(() => 'dropped' as const),
      );
      await allQueued(s.metricsBase, 'slow_fp32', 2);
      const signalledAt = Date.now();
      s.child.kill('SIGTERM');
      const outcome = await s.exited;
      const tookMs = Date.now() - signalledAt;
      const log = s.lines.join('\n');
      assert.equal(outcome, 'SIGTERM', `ended by the signal it was sent:\n${log}`);
      assert.ok(tookMs >= 1000 + 5000 - 200, `not before the grace: ${tookMs} ms`);
      assert.ok(tookMs <= 1000 + 5000 + SLACK_MS, `exited ${tookMs} ms after SIGTERM`);
      assert.ok(!s.lines.some((l) => l.includes('the runs inside ONNX Runtime returned')), log);
      // The two requests travel on their own connections, so either may reach the server first
      // (a CI run saw the second run and the first wait): one runs, one waits.
      const outcomes = await Promise.all(replies);
      const dropped = outcomes.filter((o) => o === 'dropped');
      const answered = outcomes.filter((o) => o !== 'dropped');
      assert.equal(
        dropped.length,
        1,
        `the run was cut off with the process: ${JSON.stringify(outcomes)}`,
      );
      assert.equal(answered[0]?.status, 503, 'the queued one got 503 at the cut');
    } finally {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
      await rm(repo, { recursive: true, force: true });
    }
  });
});
