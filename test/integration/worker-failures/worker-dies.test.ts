// A worker thread that dies mid-request (process.exit, or an uncaught error), over HTTP: that
// request gets a 500 naming the instance, model, version and how it died; a request running on the
// other instance is unaffected; a request sent while every instance is busy or down waits and is
// served by the replacement; the model and (with --strict-readiness) the server are not ready until
// the replacement has loaded; the failure and the restart are counted; the pool logs it once.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import {
  FAULT,
  HELD_RUN,
  HELD_START,
  RELEASE_RUN,
  RELEASE_START,
} from '../execution/fixtures/faults.js';
import {
  copySimple,
  failures,
  FaultChannel,
  poolErrors,
  readiness,
  requestErrors,
  restarts,
  setStartFault,
  simpleRequest,
  simpleSum,
  useFaultyWorker,
  useRealWorker,
} from './faulty-server.js';

const bothReady = ([model, server]: [number, number]): boolean => model === 200 && server === 200;

void describe('a worker thread that dies during a request', () => {
  let repo: string;
  let t: TestServer;
  let channel: FaultChannel;
  let infer: string;
  before(async () => {
    repo = await tempRepository();
    await copySimple(repo, 2);
    useFaultyWorker();
    t = await startTestServer({ modelRepositories: [repo], strictReadiness: true });
    channel = new FaultChannel();
    infer = `${t.base}/v2/models/simple/infer`;
  });
  afterEach(() => {
    setStartFault(undefined);
  });
  after(async () => {
    channel.close();
    await t.close();
    useRealWorker();
    await rm(repo, { recursive: true, force: true });
  });

  void it('process.exit: 500, the other instance unaffected, queued work served by the replacement', async () => {
    assert.deepEqual(await readiness(t, 'simple'), [200, 200]);
    // One instance is busy with a request held inside its worker.
    const held = postJson(infer, simpleRequest(FAULT.hold));
    await channel.next(HELD_RUN);

    // The other one exits mid-request; its replacement stops before loading.
    setStartFault('hold');
    const died = await postJson(infer, simpleRequest(FAULT.exit));
    assert.equal(died.status, 500);
    assert.match(
      died.json.error,
      /^instance simple_0_[01] of model "simple" version 1 exited during the request \(exit code 3\); it is being replaced$/,
    );
    await channel.next(HELD_START);
    assert.deepEqual(await readiness(t, 'simple'), [503, 503]);
    assert.equal(await failures(t, 'simple', 'BACKEND'), 1);
    assert.equal(await restarts(t, 'simple'), 1);

    // No instance is free now: this request waits, and only the replacement can serve it.
    const queued = postJson(infer, simpleRequest(11));
    setStartFault(undefined);
    channel.post(RELEASE_START);
    const served = await queued;
    assert.equal(served.status, 200);
    assert.deepEqual(served.json.outputs[0].data, simpleSum(11));
    assert.deepEqual(await waitFor(() => readiness(t, 'simple'), bothReady), [200, 200]);

    // The request on the other instance ran through all of it and is answered correctly.
    channel.post(RELEASE_RUN);
    const survivor = await held;
    assert.equal(survivor.status, 200);
    assert.deepEqual(survivor.json.outputs[0].data, simpleSum(FAULT.hold));

    const logged = poolErrors(t, 'simple');
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.match(
      logged[0]?.msg ?? '',
      /^model "simple" v1: instance simple_0_[01] died during a request \(exit code 3\); starting a replacement$/,
    );
    assert.equal(requestErrors(t, 'WORKER_FAILED').length, 1);
  });

  void it('an uncaught error: 500 with the error, then a replacement', async () => {
    const before = await restarts(t, 'simple');
    const died = await postJson(infer, simpleRequest(FAULT.uncaught));
    assert.equal(died.status, 500);
    assert.match(
      died.json.error,
      /^instance simple_0_[01] of model "simple" version 1 exited during the request \(uncaught Error: injected uncaught error\); it is being replaced$/,
    );
    assert.equal(await failures(t, 'simple', 'BACKEND'), 2);
    assert.deepEqual(await waitFor(() => readiness(t, 'simple'), bothReady), [200, 200]);
    // The replacement starts once the dead thread's pool is gone, so it is counted by now.
    assert.equal(await restarts(t, 'simple'), before + 1);
    const after = await postJson(infer, simpleRequest(3));
    assert.equal(after.status, 200);
    assert.deepEqual(after.json.outputs[0].data, simpleSum(3));
    const logged = poolErrors(t, 'simple').filter((r) => /uncaught/.test(r.msg));
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.match(
      logged[0]?.msg ?? '',
      /died during a request \(uncaught Error: injected uncaught error\)/,
    );
  });
});
