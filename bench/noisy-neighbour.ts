// infernode-bench noisy-neighbour (issue 31 item 5): tenant B at half its quota alone, then beside
// tenant A sending 10× its own quota, with tenant quotas off (no --tenant-header) and on
// (--tenant-header, --quota-file). Open loop: each tenant sends at a fixed rate whatever the
// answers, one mlp row per request on keep-alive connections. Publishes B's p50/p99 per phase, A's
// admitted rate against its quota and its throttled count to bench/results/noisy-neighbour.json
// and bench/RESULTS.md.

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { commandLine } from './entry.js';
import { latencyFigures, openLoop, postJson, type OpenLoopWindow } from './measure/load-window.js';
import { machineInfo } from './measure/machine-info.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { publishNoisyNeighbour } from './report/publish.js';
import type { SubcommandModule } from './subcommands.js';
import { startInfernode, type ServerProcess } from './targets/server-process.js';
import {
  medianPhases,
  NOISY_SCHEMA,
  type NoisyPhase,
  type NoisyPhaseName,
  type NoisyResult,
  type TenantFigures,
} from './tenants/noisy-neighbour-result.js';

const TENANT_HEADER = 'x-tenant';

const BODY = Buffer.from(
  JSON.stringify({
    inputs: [
      {
        name: 'INPUT0',
        datatype: 'FP32',
        shape: [1, 784],
        data: Array.from({ length: 784 }, (_, i) => Math.cos(i * 0.02)),
      },
    ],
  }),
);

/** Sends at `rps` for `secs` as `tenant` (open loop: a request every 1/rps s, answered or not). */
function send(
  server: ServerProcess,
  tenant: string,
  rps: number,
  secs: number,
): Promise<OpenLoopWindow> {
  const headers = { [TENANT_HEADER]: tenant };
  return openLoop(rps, secs, (agent) =>
    postJson(agent, server, '/v2/models/mlp/infer', BODY, headers),
  );
}

function figures(w: OpenLoopWindow, secs: number): TenantFigures {
  const ok = w.statuses.get(200) ?? 0;
  const throttled = w.statuses.get(429) ?? 0;
  const { p50Ms, p99Ms } = latencyFigures(w.latencies, secs);
  return {
    sent: w.sent,
    ok,
    throttled,
    errors: w.sent - ok - throttled,
    admittedPerSec: ok / secs,
    p50Ms,
    p99Ms,
  };
}

async function phase(
  name: NoisyPhaseName,
  args: readonly string[],
  quotas: boolean,
  rates: { a: number; b: number } | { a: null; b: number },
  secs: number,
  warmupSecs: number,
): Promise<NoisyPhase> {
  const server = await startInfernode(DEFAULT_MODEL_REPOSITORY, args);
  try {
    // Warm-up: both sessions' first runs, the connection pools.
    await send(server, 'warmup', 50, warmupSecs);
    const [a, b] = await Promise.all([
      rates.a === null ? Promise.resolve(null) : send(server, 'A', rates.a, secs),
      send(server, 'B', rates.b, secs),
    ]);
    const p: NoisyPhase = {
      name,
      quotas,
      a: a === null ? null : figures(a, secs),
      b: figures(b, secs),
    };
    process.stdout.write(
      `${name.padEnd(18)} B p50 ${p.b.p50Ms.toFixed(2)} ms p99 ${p.b.p99Ms.toFixed(2)} ms ` +
        `(${p.b.ok} ok, ${p.b.throttled} 429, ${p.b.errors} errors)` +
        (p.a === null
          ? '\n'
          : `; A ${p.a.admittedPerSec.toFixed(2)}/s admitted, ${p.a.throttled} throttled, ${p.a.errors} errors\n`),
    );
    return p;
  } finally {
    await server.stop();
  }
}

/** Every flag of `infernode-bench noisy-neighbour`: parsing and its --help read this table. */
export const FLAGS = {
  'phase-secs': { kind: 'string', default: '30', help: 'Measured time per phase, s' },
  'warmup-secs': { kind: 'string', default: '2', help: 'Warm-up before each phase, s' },
  'a-quota': { kind: 'string', default: '20', help: "Tenant A's rps quota (it sends 10×)" },
  // B sends 100/s: 3000 samples a phase put its p99 on the 30th-worst request. At 20/s (600, the
  // 6th-worst) B's p99 alone moved 5.8-13 ms from round to round, more than the 1.2x it is held to.
  'b-quota': { kind: 'string', default: '200', help: "Tenant B's rps quota (it sends half)" },
  rounds: {
    kind: 'string',
    default: '1',
    help: 'Rounds of the three phases, their order rotated each round; the table gives medians',
  },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const secs = Number(values['phase-secs']);
  const warmupSecs = Number(values['warmup-secs']);
  const quotaRps = { a: Number(values['a-quota']), b: Number(values['b-quota']) };
  if (!(secs > 0) || !(warmupSecs >= 0) || !(quotaRps.a > 0) || !(quotaRps.b > 0)) {
    throw new UsageError('--phase-secs, --a-quota and --b-quota: expected numbers > 0');
  }
  const roundCount = Number(values.rounds);
  if (!Number.isInteger(roundCount) || roundCount < 1) {
    throw new UsageError(`--rounds: expected an integer >= 1, got "${values.rounds}"`);
  }
  const sendRps = { a: quotaRps.a * 10, b: quotaRps.b / 2 };
  const dir = await mkdtemp(path.join(tmpdir(), 'noisy-neighbour-'));
  const quotaFile = path.join(dir, 'quotas.json');
  // The default burst (= rps): A is admitted its rps plus one second's burst over the phase
  // (+1/phase-secs, 3.3 % at 30 s). Burst 1 would lose the refill between the token's return and
  // A's next request on every token (17.6/s of 20 in a first run here).
  await writeFile(
    quotaFile,
    JSON.stringify({
      tenants: {
        A: { rps: quotaRps.a },
        B: { rps: quotaRps.b },
        warmup: {},
      },
    }),
  );
  const load0 = loadavg()[0] ?? 0;
  const runs: (() => Promise<NoisyPhase>)[] = [
    () => phase('B alone', [], false, { a: null, b: sendRps.b }, secs, warmupSecs),
    () => phase('A + B, quotas off', [], false, sendRps, secs, warmupSecs),
    () =>
      phase(
        'A + B, quotas on',
        [`--tenant-header=${TENANT_HEADER}`, `--quota-file=${quotaFile}`],
        true,
        sendRps,
        secs,
        warmupSecs,
      ),
  ];
  const rounds: NoisyPhase[][] = [];
  for (let round = 0; round < roundCount; round++) {
    if (roundCount > 1) process.stdout.write(`round ${round + 1} of ${roundCount}\n`);
    const measured: NoisyPhase[] = [];
    // Rotated: round 2 starts with the second phase, and so on.
    for (let i = 0; i < runs.length; i++) {
      measured.push(await (runs[(i + round) % runs.length] as () => Promise<NoisyPhase>)());
    }
    rounds.push(measured);
  }
  const phases = roundCount > 1 ? medianPhases(rounds) : (rounds[0] ?? []);
  const load1 = loadavg()[0] ?? 0;
  const result: NoisyResult = {
    schema: NOISY_SCHEMA,
    startedAt: new Date().toISOString(),
    command: commandLine('noisy-neighbour', argv),
    machine: machineInfo(),
    phaseSecs: secs,
    quotaRps,
    sendRps,
    phases,
    ...(roundCount > 1 ? { rounds } : {}),
    note:
      `The machine was shared with other work while this ran (1-minute load average ` +
      `${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end): the latencies are noisy.`,
  };
  const out = path.join(BENCH_OUT, `${result.startedAt.replace(/[:.]/g, '-')}-noisy-neighbour`);
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (values['no-publish'] !== true) {
    for (const f of await publishNoisyNeighbour(result)) process.stdout.write(`wrote ${f}\n`);
  }
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
