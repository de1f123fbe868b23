// A JS exception thrown by a worker's task handler (outside ORT; the thread lives on), over HTTP:
// that request gets a 500 naming the instance, model and version; the worker is recycled; the model
// and (with --strict-readiness) the server are not ready until its replacement has loaded; the
// failure and the restart are counted; the pool logs the event once, at error level.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { FAULT, HELD_START, RELEASE_START } from '../execution/fixtures/faults.js';
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

void describe('a worker whose task handler throws', () => {
  let repo: string;
  let t: TestServer;
  let channel: FaultChannel;
  before(async () => {
    repo = await tempRepository();
    await copySimple(repo, 1);
    useFaultyWorker();
    t = await startTestServer({ modelRepositories: [repo], strictReadiness: true });
    channel = new FaultChannel();
  });
  after(async () => {
    setStartFault(undefined);
    channel.close();
    await t.close();
    useRealWorker();
    await rm(repo, { recursive: true, force: true });
  });

  void it('fails that request with a clear 500, recycles the worker and recovers', async () => {
    const infer = `${t.base}/v2/models/simple/infer`;
    assert.equal((await postJson(infer, simpleRequest(5))).status, 200);
    assert.deepEqual(await readiness(t, 'simple'), [200, 200]);

    // The replacement stops before loading, so the test can look at the server in between.
    setStartFault('hold');
    const r = await postJson(infer, simpleRequest(FAULT.throw));
    assert.equal(r.status, 500);
    assert.equal(
      r.json.error,
      'instance simple_0 of model "simple" version 1 failed during the request ' +
        '(Error: injected handler failure); its worker is being restarted',
    );
    await channel.next(HELD_START);
    assert.deepEqual(await readiness(t, 'simple'), [503, 503]);
    assert.equal(await failures(t, 'simple', 'BACKEND'), 1);
    assert.equal(await restarts(t, 'simple'), 1);

    setStartFault(undefined);
    channel.post(RELEASE_START);
    const ready = await waitFor(
      () => readiness(t, 'simple'),
      ([model, server]) => model === 200 && server === 200,
    );
    assert.deepEqual(ready, [200, 200]);
    const after = await postJson(infer, simpleRequest(7));
    assert.equal(after.status, 200);
    assert.deepEqual(after.json.outputs[0].data, simpleSum(7));

    // Once from the pool, with the stack for whoever fixes the bug; once per failed request from
    // the front end, with what the client got.
    const logged = poolErrors(t, 'simple');
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.match(
      logged[0]?.msg ?? '',
      /^model "simple" v1: instance simple_0 threw during a request, restarting its worker: Error: injected handler failure\n\s+at /,
    );
    assert.match(logged[0]?.msg ?? '', /; starting a replacement$/);
    assert.equal(requestErrors(t, 'WORKER_FAILED').length, 1);
  });
});
