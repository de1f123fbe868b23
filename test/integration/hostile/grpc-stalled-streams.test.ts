// Issue 33, defect 1: one HTTP/2 connection opening 100 ModelStreamInfer streams of [1,65536] FP32
// requests with a 1 KiB receive window, never reading. The server's memory for them must stay
// within its client-memory budget (default 160 MiB), the budget's gauge must never pass it, and the
// memory must come back within 10 s of the client going.

import { after, before, describe, it } from 'node:test';
import { stalledGrpcStreams } from '../../../bench/soak/hostile-clients.js';
import { measureHostile } from '../../../bench/soak/hostile-scenario.js';
import {
  AFTER_MS,
  KEPT_MARGIN_BYTES,
  assertWithinBudget,
  startHostileServer,
  type HostileServer,
} from './hostile-support.js';

void describe('100 never-reading gRPC streams on one connection', () => {
  let s: HostileServer;
  before(async () => {
    s = await startHostileServer([]);
  });
  after(() => s.close());

  void it('hold at most the client-memory budget, and report what it gives back after the client goes', async (t) => {
    const m = await measureHostile(() => stalledGrpcStreams(s.server.grpcTarget, 100, 64), {
      pid: s.pid,
      metricsBase: s.server.metricsBase,
      stallMs: 12_000,
      afterMs: AFTER_MS,
      givenBackWithinBytes: KEPT_MARGIN_BYTES,
    });
    assertWithinBudget(m, t);
  });
});
