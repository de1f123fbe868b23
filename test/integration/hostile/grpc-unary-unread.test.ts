// Issue 33: unary ModelInfer calls whose answers the client never reads. Each call holds its
// request's bytes, then its answer, in the client-memory budget until the client takes it; over the
// budget a call ends with RESOURCE_EXHAUSTED (trailers only, which flow control does not hold
// back). Here: an 8 MiB budget, one connection with a 1 KiB receive window sending 16 calls of
// [1,262144] FP32 (1 MiB each way) and reading nothing. Before, the calls were not counted at all.

import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { grpcRequest } from '../../../bench/soak/hostile-clients.js';
import { MODEL_INFER_PATH } from '../../../src/grpc/unary-infer.js';
import { startHostileServer, type HostileServer, reserved } from './hostile-support.js';

const BUDGET = 8 * 1024 * 1024;
const CALLS = 16;
const ELEMENTS = 262_144;

void describe('unary gRPC calls whose answers are never read', () => {
  let s: HostileServer;
  before(async () => {
    s = await startHostileServer([`--client-memory-budget=${BUDGET}`]);
  });
  after(() => s.close());

  void it('hold at most the budget; the calls over it end with RESOURCE_EXHAUSTED', async () => {
    const session = http2.connect(`http://${s.server.grpcTarget}`, {
      settings: { initialWindowSize: 1024 },
    });
    session.on('error', () => undefined);
    const statuses: { status: string; message: string }[] = [];
    let peak = 0;
    try {
      for (let i = 0; i < CALLS; i++) {
        const stream = session.request({
          ':method': 'POST',
          ':path': MODEL_INFER_PATH,
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        stream.pause(); // never read: the answers wait behind the 1 KiB window
        stream.on('error', () => undefined);
        stream.on('response', (h) => {
          if (h['grpc-status'] !== undefined)
            statuses.push({
              status: String(h['grpc-status']),
              message: decodeURI(String(h['grpc-message'] ?? '')),
            });
        });
        stream.end(grpcRequest('identity_fp32', ELEMENTS, i));
      }
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && statuses.length < CALLS - BUDGET / (ELEMENTS * 4)) {
        peak = Math.max(peak, await reserved(s.server.metricsBase));
        await sleep(100);
      }
      peak = Math.max(peak, await reserved(s.server.metricsBase));
      const live = await fetch(`${s.server.base}/v2/health/live`);
      assert.equal(live.status, 200, 'the server keeps answering others');
      assert.ok(peak > 0, `the calls are counted in the budget: ${JSON.stringify(statuses)}`);
      assert.ok(peak <= BUDGET, `the gauge peaked at ${peak}, over the budget ${BUDGET}`);
      const exhausted = statuses.filter((x) => x.status === '8');
      assert.ok(exhausted.length > 0, `no call was refused: ${JSON.stringify(statuses)}`);
      assert.match(exhausted[0]?.message ?? '', /--client-memory-budget 8388608/);
    } finally {
      session.destroy();
    }
    // The client went: what its calls held comes back (after the reclaim round, within seconds).
    const deadline = Date.now() + 15_000;
    let now = await reserved(s.server.metricsBase);
    while (now !== 0 && Date.now() < deadline) {
      await sleep(200);
      now = await reserved(s.server.metricsBase);
    }
    assert.equal(now, 0, 'all given back after the client went');
  });
});
