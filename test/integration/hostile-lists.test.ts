// Oversized tensor lists against a real server (issue 33, defect 2): a 54 MB JSON body listing
// 900,000 inputs and a gRPC message of 2.5 M inputs are refused with the words they always got,
// quickly, while /v2/health/live on another connection keeps answering. Before the lists were
// counted while decoding, these took 9-11 s and 3-8 s, during which the health check waited too.
// The bounds are loose (this machine is shared), but an order of magnitude below those figures.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  grpcInferFrame,
  oversizedGrpcFrame,
  oversizedJsonBody,
  postInferBody,
  probeLive,
} from '../../bench/soak/oversized-lists.js';
import { TEST_FIXTURES } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const REFUSE_WITHIN_MS = 2_000;
const LIVE_WITHIN_MS = 1_000;

void describe('oversized tensor lists against a real server', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      modelRepositories: [path.join(TEST_FIXTURES, 'repository')],
      modelControlMode: 'explicit',
      loadModels: ['identity_fp32'],
    });
  });
  after(async () => {
    await t.close();
  });

  void it('refuses 900,000 JSON inputs quickly, health answering meanwhile', async () => {
    const body = oversizedJsonBody(900_000);
    const probe = probeLive(t.base);
    const answer = await postInferBody(t.base, 'identity_fp32', body);
    const slowest = (await probe.stop()).maxMs;
    assert.equal(answer.status, '400');
    assert.deepEqual(JSON.parse(answer.message), {
      error: 'the request lists more than 1024 inputs; at most 1024 are accepted',
    });
    assert.ok(answer.ms < REFUSE_WITHIN_MS, `refused after ${answer.ms.toFixed(0)} ms`);
    assert.ok(slowest < LIVE_WITHIN_MS, `health/live took up to ${slowest.toFixed(0)} ms`);
  });

  void it('refuses a gRPC message of 2.5 M inputs quickly, health answering meanwhile', async () => {
    const frame = oversizedGrpcFrame(2_500_000, 'identity_fp32');
    const probe = probeLive(t.base);
    const answer = await grpcInferFrame(t.grpcTarget, frame);
    const slowest = (await probe.stop()).maxMs;
    assert.equal(answer.status, 'grpc 3');
    assert.equal(
      answer.message,
      'a request may name at most 1024 inputs and 1024 outputs, got more than 1024 inputs',
    );
    assert.ok(answer.ms < REFUSE_WITHIN_MS, `refused after ${answer.ms.toFixed(0)} ms`);
    assert.ok(slowest < LIVE_WITHIN_MS, `health/live took up to ${slowest.toFixed(0)} ms`);
  });
});
