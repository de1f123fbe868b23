// The rolling-restart run (scale-out issue, item 5), longer than the test's: three replicas behind
// HAProxy or nginx, a steady stream of infer requests, each replica restarted with SIGTERM in turn;
// prints the result as JSON (requests sent, failed, p99 in the steady period and during restarts).
// scripts/rolling-restart.sh installs the balancers and builds first.
//
//   npm run bench:rolling -- [--balancer haproxy|nginx] [--steady-secs 20] [--rounds 3] [--lanes 4]

import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { balancerMissing } from './rolling/balancer.js';
import { rollingRestart } from './rolling/rolling-run.js';
import type { SubcommandModule } from './subcommands.js';

/** Every flag of `infernode-bench rolling`: parsing and its --help read this table. */
export const FLAGS = {
  balancer: { kind: 'string', default: 'haproxy', help: 'haproxy | nginx' },
  'steady-secs': { kind: 'string', default: '20', help: 'Steady period before the restarts, s' },
  rounds: { kind: 'string', default: '3', help: 'Restart rounds (each replica once per round)' },
  lanes: { kind: 'string', default: '4', help: 'Concurrent request lanes' },
  'rejoin-ms': {
    kind: 'string',
    default: '1500',
    help: 'Wait for a restarted replica to rejoin the balancer, ms',
  },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const balancer = values.balancer;
  if (balancer !== 'haproxy' && balancer !== 'nginx') {
    throw new UsageError(`--balancer: expected haproxy or nginx, got '${balancer}'`);
  }
  const missing = balancerMissing(balancer);
  if (missing !== false) throw new UsageError(missing);
  const result = await rollingRestart({
    balancer,
    replicas: 3,
    lanes: Number(values.lanes),
    steadySecs: Number(values['steady-secs']),
    rejoinMs: Number(values['rejoin-ms']),
    rounds: Number(values.rounds),
  });
  console.log(JSON.stringify(result, null, 2));
  return result.failed === 0 ? 0 : 1;
}

export const command: SubcommandModule = { flags: FLAGS, main };
