// Replacements that keep failing to start, over HTTP: a worker that dies as it starts, and one whose
// session fails to load (its model file was damaged after the model loaded). Attempts are spaced out
// by a doubling back-off (restart-backoff.ts) instead of respawning in a loop; meanwhile the model
// and the server are not ready and requests get a prompt 503 saying why, not a hang; once the cause
// is gone the next attempt brings the model back.

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { restartDelayMs } from '../../../src/execution/restart-backoff.js';
import { tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { FAULT } from '../execution/fixtures/faults.js';
import {
  copySimple,
  poolErrors,
  readiness,
  restarts,
  setStartFault,
  simpleRequest,
  simpleSum,
  useFaultyWorker,
  useRealWorker,
  type LogRecord,
} from './faulty-server.js';

const bothReady = ([model, server]: [number, number]): boolean => model === 200 && server === 200;

/** Longer than the longest back-off (30 s), however many attempts a slow machine has made. */
const RECOVERY_MS = 60_000;

/** The delays the pool announced after each failed attempt matching `what`, with their times. */
function attempts(records: readonly LogRecord[], what: RegExp): { at: number; delayMs: number }[] {
  return records
    .filter((r) => what.test(r.msg))
    .map((r) => {
      const delay = /next attempt in ([\d.]+) s$/.exec(r.msg)?.[1];
      assert.ok(delay !== undefined, r.msg);
      return { at: Date.parse(r.time), delayMs: Math.round(Number(delay) * 1000) };
    });
}

void describe('replacements that keep failing to start', () => {
  let repo: string;
  let t: TestServer;
  let infer: string;
  before(async () => {
    repo = await tempRepository();
    await copySimple(repo, 1);
    useFaultyWorker();
    t = await startTestServer({ modelRepositories: [repo], strictReadiness: true });
    infer = `${t.base}/v2/models/simple/infer`;
  });
  afterEach(() => {
    setStartFault(undefined);
  });
  after(async () => {
    await t.close();
    useRealWorker();
    await rm(repo, { recursive: true, force: true });
  });

  void it('a worker that dies as it starts is retried after doubling delays', async () => {
    assert.equal((await postJson(infer, simpleRequest(1))).status, 200);
    setStartFault('exit');
    assert.equal((await postJson(infer, simpleRequest(FAULT.exit))).status, 500);
    // The first replacement starts at once; each one after a failed start waits longer.
    const seen = await waitFor(
      () => restarts(t, 'simple'),
      (n) => n >= 4,
    );
    assert.ok(seen >= 4, `${seen} restart(s)`);
    assert.deepEqual(await readiness(t, 'simple'), [503, 503]);

    const refused = await postJson(infer, simpleRequest(2));
    assert.equal(refused.status, 503);
    // The instance is waiting out its back-off, which the answer shows.
    assert.match(
      refused.json.error,
      /^model "simple" version 1 is not ready: no instance is running \(instance simple_0: its worker died while starting \(exit code 4\)\); it is being restarted \(next attempt in \d+\.\d\d s, after \d+ consecutive failures\)$/,
    );

    const tries = attempts(poolErrors(t, 'simple'), /died while starting \(exit code 4\)/);
    assert.ok(tries.length >= 3, JSON.stringify(tries));
    tries.forEach((a, k) => {
      // The k-th failed start is the (k + 2)-th consecutive failure: the death during the request
      // was the first.
      assert.equal(a.delayMs, restartDelayMs(k + 2));
      const next = tries[k + 1];
      // Log times have millisecond resolution.
      if (next !== undefined) assert.ok(next.at - a.at >= a.delayMs - 2, JSON.stringify(tries));
    });

    setStartFault(undefined);
    assert.deepEqual(
      await waitFor(() => readiness(t, 'simple'), bothReady, RECOVERY_MS),
      [200, 200],
    );
    const served = await postJson(infer, simpleRequest(3));
    assert.equal(served.status, 200);
    assert.deepEqual(served.json.outputs[0].data, simpleSum(3));
  });

  void it('a replacement whose session fails to load is retired and retried', async () => {
    const file = path.join(repo, 'simple', '1', 'model.onnx');
    const good = await readFile(file);
    const before = await restarts(t, 'simple');
    assert.equal((await postJson(infer, simpleRequest(4))).status, 200);
    await writeFile(file, good.subarray(0, 100));
    try {
      assert.equal((await postJson(infer, simpleRequest(FAULT.exit))).status, 500);
      const seen = await waitFor(
        () => restarts(t, 'simple'),
        (n) => n >= before + 3,
      );
      assert.ok(seen >= before + 3, `${seen - before} restart(s)`);
      assert.deepEqual(await readiness(t, 'simple'), [503, 503]);
      const refused = await postJson(infer, simpleRequest(5));
      assert.equal(refused.status, 503);
      assert.match(
        refused.json.error,
        /^model "simple" version 1 is not ready: no instance is running \(instance simple_0: Load model from simple\/1\/model\.onnx failed:.*\); it is being restarted \(next attempt in \d+\.\d\d s, after \d+ consecutive failures\)$/,
      );
      assert.ok(!(refused.json.error as string).includes(repo), refused.json.error);
      const tries = attempts(
        poolErrors(t, 'simple'),
        /the replacement for instance simple_0 failed to load: Load model from simple\/1\/model\.onnx/,
      );
      assert.ok(tries.length >= 2, JSON.stringify(tries));
      tries.forEach((a, k) => assert.equal(a.delayMs, restartDelayMs(k + 2)));
    } finally {
      await writeFile(file, good);
    }
    assert.deepEqual(
      await waitFor(() => readiness(t, 'simple'), bothReady, RECOVERY_MS),
      [200, 200],
    );
    const served = await postJson(infer, simpleRequest(6));
    assert.equal(served.status, 200);
    assert.deepEqual(served.json.outputs[0].data, simpleSum(6));
  });
});
