// A session whose every run fails inside ONNX Runtime (the failing_run fixture: a Reshape whose
// target shape, computed from the input, never fits), over HTTP. Each request gets a 500 with ORT's
// reason and no path; the failures are counted; the instance is not recycled, as in Triton: ORT's
// verdict is on the request, a fresh session would give the same, so readiness stays 200 and no
// worker restarts. The front end logs each failed request once; the pool logs nothing.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { failures, poolErrors, readiness, requestErrors, restarts } from './faulty-server.js';

const RUNS = 5;

void describe('a session whose every run fails in ONNX Runtime', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'failing_run');
    t = await startTestServer({ modelRepositories: [repo], strictReadiness: true });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('answers each request with a clear 500 and keeps the instance', async () => {
    assert.deepEqual(await readiness(t, 'failing_run'), [200, 200]);
    for (let k = 1; k <= RUNS; k++) {
      const r = await postJson(`${t.base}/v2/models/failing_run/infer`, {
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [k, 4], data: Array(4 * k).fill(1) }],
      });
      assert.equal(r.status, 500);
      const error = r.json.error as string;
      assert.match(error, /running Reshape node\. Name:'reshape' Status Message: input_shape_size/);
      assert.match(
        error,
        new RegExp(
          `cannot be reshaped to the requested shape\\. Input shape:\\{${k},4\\}, requested shape:\\{${k},8\\}`,
        ),
      );
      assert.ok(!error.includes(repo), error);
      assert.doesNotMatch(error, /(^|[\s:'"])\/[\w.-]+\/[\w./-]+/, 'an absolute path');
      assert.deepEqual(await readiness(t, 'failing_run'), [200, 200]);
    }
    assert.equal(await failures(t, 'failing_run', 'BACKEND'), RUNS);
    assert.equal(await restarts(t, 'failing_run'), 0);
    assert.deepEqual(poolErrors(t, 'failing_run'), []);
    assert.equal(requestErrors(t, 'INFER_FAILED').length, RUNS);
  });
});
