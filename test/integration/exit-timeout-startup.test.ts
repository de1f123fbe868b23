// --exit-timeout-secs during a start-up load, on the real `infernode` command: a SIGTERM that
// arrives while a worker is inside InferenceSession.create must not wait for the load. The model is
// slow_fp32's graph made deep enough that creating its session (graph optimization) takes many
// times the timeout: about 17 s for 5,000 layers on the 2-core development machine.

import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { slowModel } from '../../scripts/onnx/fixture-models.js';
import { runCli } from '../helpers/spawn-server.js';
import { slowModelConfig } from '../helpers/slow-model-timing.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { logged } from '../helpers/wait-for.js';

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
