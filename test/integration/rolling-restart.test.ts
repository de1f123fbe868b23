// The rolling restart behind a real balancer (scale-out issue, item 5): three replicas on loopback
// behind HAProxy, and again behind nginx, a steady stream of infer requests through the balancer,
// each replica stopped with SIGTERM and started again in turn: not one request fails, and every
// replica's drain ends with exit status 0. Short steady period and one round, to stay under a
// minute per balancer; `npm run bench:rolling` (scripts/rolling-restart.sh) runs longer.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { balancerMissing, type BalancerKind } from '../../bench/rolling/balancer.js';
import { rollingRestart } from '../../bench/rolling/rolling-run.js';

/**
 * Both balancers, unless INFERNODE_TEST_BALANCERS names some (comma-separated): .ci/run runs
 * HAProxy in its Node 20 pass and nginx in its Node 24 pass, so each runs once per CI run (about
 * 25 s each) and the run stays within its 20 minutes; `npm test` alone runs both.
 */
const BALANCERS: readonly BalancerKind[] = (
  process.env['INFERNODE_TEST_BALANCERS'] ?? 'haproxy,nginx'
)
  .split(',')
  .map((b) => {
    if (b !== 'haproxy' && b !== 'nginx') {
      throw new Error(`INFERNODE_TEST_BALANCERS: expected haproxy and/or nginx, got "${b}"`);
    }
    return b;
  });

void describe('rolling restart behind a load balancer', () => {
  for (const balancer of BALANCERS) {
    void it(
      `${balancer}: three replicas restarted one at a time, zero failed requests`,
      { skip: balancerMissing(balancer), timeout: 90_000 },
      async (t) => {
        const r = await rollingRestart({
          balancer,
          replicas: 3,
          lanes: 4,
          steadySecs: 2,
          rejoinMs: 1000,
          rounds: 1,
        });
        t.diagnostic(
          `${balancer}: sent ${r.sent}, failed ${r.failed}; p99 steady ${r.steady.p99Ms} ms ` +
            `(${r.steady.requests} requests), during restarts ${r.restarting.p99Ms} ms ` +
            `(${r.restarting.requests} requests, max ${r.restarting.maxMs} ms); ${r.durationSecs} s`,
        );
        assert.deepEqual(r.failures, []);
        assert.equal(r.failed, 0);
        assert.deepEqual(r.exitCodes, [0, 0, 0]);
        assert.ok(r.steady.requests > 0 && r.restarting.requests > 0);
      },
    );
  }
});
