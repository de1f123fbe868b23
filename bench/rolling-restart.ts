#!/usr/bin/env node
// The rolling-restart run (scale-out issue, item 5), longer than the test's: three replicas behind
// HAProxy or nginx, a steady stream of infer requests, each replica restarted with SIGTERM in turn;
// prints the result as JSON (requests sent, failed, p99 in the steady period and during restarts).
// scripts/rolling-restart.sh installs the balancers and builds first.
//
//   npm run bench:rolling -- [--balancer haproxy|nginx] [--steady-secs 20] [--rounds 3] [--lanes 4]

import { parseArgs } from 'node:util';
import { balancerMissing, type BalancerKind } from './rolling/balancer.js';
import { rollingRestart } from './rolling/rolling-run.js';

const { values } = parseArgs({
  options: {
    balancer: { type: 'string', default: 'haproxy' },
    'steady-secs': { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    lanes: { type: 'string', default: '4' },
    'rejoin-ms': { type: 'string', default: '1500' },
  },
});
const balancer = values.balancer as BalancerKind;
if (balancer !== 'haproxy' && balancer !== 'nginx') {
  console.error(`--balancer: expected haproxy or nginx, got '${String(balancer)}'`);
  process.exit(2);
}
const missing = balancerMissing(balancer);
if (missing !== false) {
  console.error(missing);
  process.exit(2);
}
const result = await rollingRestart({
  balancer,
  replicas: 3,
  lanes: Number(values.lanes),
  steadySecs: Number(values['steady-secs']),
  rejoinMs: Number(values['rejoin-ms']),
  rounds: Number(values.rounds),
});
console.log(JSON.stringify(result, null, 2));
process.exitCode = result.failed === 0 ? 0 : 1;
