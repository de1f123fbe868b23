// What the hostile-client tests share: a server child process on a throwaway repository holding
// identity_fp32 (with glibc's malloc set as the deployment files set it), and the bounds they hold
// its RSS to. RSS is noisy on a shared machine, so the
// margins are generous; the defects they catch were gigabytes (issue 33).

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import type { TestContext } from 'node:test';
import {
  mib,
  RESERVED_GAUGE,
  reservedGauge,
  type HostileMeasurement,
} from '../../../bench/soak/hostile-scenario.js';
import { DEPLOYED_MALLOC_ENV } from '../../../src/memory/malloc-environment.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { spawnServer, type SpawnedServer } from '../../helpers/spawn-server.js';

/** The default budget for memory held for clients (docs/operations.md, "Hostile clients"). */
export const DEFAULT_BUDGET_BYTES = 160 * 1024 * 1024;
/**
 * Room for what the budget does not count: V8 objects, garbage not collected yet, allocator slack,
 * measurement noise. Growth seen with the budget working (160 MiB): +173 to +220 MiB on this 2-core
 * machine (bench/hostile-clients.ts), and +443 MiB on CI with two front-end threads (Node 24, at
 * the 256 MiB budget before the garbage stayed counted). The defects this guards against held +760
 * to +1,045 MiB (WebSocket: 4 x 256 MiB queued), which budget + 384 MiB still catches. The budget's
 * own gauge is held to the budget exactly.
 */
export const RSS_MARGIN_BYTES = 384 * 1024 * 1024;
/**
 * How long after the clients went the last RSS is read, at most: the tests stop waiting as soon as
 * RSS is back within KEPT_MARGIN_BYTES of its baseline (often at once with the deployed malloc
 * settings; where it stays above, the wait is the whole 5 s). The give-back is reported, not
 * asserted (below), so the tests wait 5 s at most instead of the 10 s: the CI run is held
 * to 20 minutes, and `node dist/bench/cli.js hostile-clients --after-secs 10` measures the full
 * wait.
 */
export const AFTER_MS = 5_000;
/** RSS may stay this far above its baseline AFTER_MS after the clients went. */
export const KEPT_MARGIN_BYTES = 96 * 1024 * 1024;

export interface HostileServer {
  readonly server: SpawnedServer;
  readonly pid: number;
  close(): Promise<void>;
}

export async function startHostileServer(args: readonly string[]): Promise<HostileServer> {
  const repo = await tempRepository();
  await copyModel(repo, 'identity_fp32');
  const server = await spawnServer([`--model-repository=${repo}`, ...args], undefined, {
    ...process.env,
    ...DEPLOYED_MALLOC_ENV,
  });
  const pid = server.child.pid;
  if (pid === undefined) throw new Error('the server has no pid');
  return {
    server,
    pid,
    close: async () => {
      server.child.kill('SIGKILL');
      await server.exited;
      await rm(repo, { recursive: true, force: true });
    },
  };
}

/**
 * The checks both hostile-client tests make of a measurement: the budget's gauge exists and never
 * passed the budget, RSS stayed within the budget plus the margin, and what was not given back
 * AFTER_MS after the clients went is reported (not asserted: a memory target, which bench/
 * hostile-clients.ts measures and docs/operations.md publishes; RSS on a loaded CI machine is noisy).
 */
export function assertWithinBudget(m: HostileMeasurement, t: TestContext): void {
  const report =
    `baseline ${mib(m.baselineRss)}, peak ${mib(m.peakRss)}, after ${mib(m.afterRss)}, ` +
    `${m.sent} requests taken, gauge peak ${m.peakReserved === null ? 'none' : mib(m.peakReserved)}`;
  assert.ok(m.peakReserved !== null, `the server exports no client-memory gauge (${report})`);
  assert.ok(m.peakReserved <= DEFAULT_BUDGET_BYTES, report);
  assert.ok(m.peakRss - m.baselineRss <= DEFAULT_BUDGET_BYTES + RSS_MARGIN_BYTES, report);
  if (m.afterRss - m.baselineRss > KEPT_MARGIN_BYTES) t.diagnostic(`not given back: ${report}`);
}

/** The client-memory gauge's value now; fails the test where the server exports none. */
export async function reserved(metricsBase: string): Promise<number> {
  const value = await reservedGauge(metricsBase);
  assert.ok(value !== null, `no ${RESERVED_GAUGE} on the metrics endpoint`);
  return value;
}
