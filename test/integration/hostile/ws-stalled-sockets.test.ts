// Issue 33, defect 5: four WebSockets that send [1,131072] FP32 requests and never read. Unread
// answers used to be bounded per socket only (256 MiB each); together they must stay within the
// server's client-memory budget (default 160 MiB) and be given back within 10 s of the clients
// going. Run on both HTTP front ends.

import { after, before, describe, it } from 'node:test';
import { stalledWebSockets } from '../../../bench/soak/hostile-clients.js';
import { measureHostile } from '../../../bench/soak/hostile-scenario.js';
import { loadUws } from '../../../src/http/uws/uws-loader.js';
import {
  AFTER_MS,
  KEPT_MARGIN_BYTES,
  assertWithinBudget,
  startHostileServer,
  type HostileServer,
} from './hostile-support.js';

const uws = loadUws();

for (const frontEnd of ['uws', 'node'] as const) {
  void describe(
    `4 never-reading WebSockets (${frontEnd})`,
    {
      skip: frontEnd === 'uws' && !uws.ok ? (uws.ok ? false : uws.reason) : false,
    },
    () => {
      let s: HostileServer;
      before(async () => {
        s = await startHostileServer([`--http-front-end=${frontEnd}`]);
      });
      after(() => s.close());

      void it('hold at most the client-memory budget, and report what they give back after they go', async (t) => {
        const url = `${s.server.base.replace('http:', 'ws:')}/v2/ws`;
        const m = await measureHostile(() => stalledWebSockets(url, 4, 1024), {
          pid: s.pid,
          metricsBase: s.server.metricsBase,
          stallMs: 12_000,
          afterMs: AFTER_MS,
          givenBackWithinBytes: KEPT_MARGIN_BYTES,
        });
        assertWithinBudget(m, t);
      });
    },
  );
}
