// infernode-bench noisy-neighbour (issue 31 item 5): tenant B at half its quota alone, then beside
// tenant A sending 10× its own quota, with tenant quotas off (no --tenant-header) and on
// (--tenant-header, --quota-file). Open loop: each tenant sends at a fixed rate whatever the
// answers, one mlp row per request on keep-alive connections. Publishes B's p50/p99 per phase, A's
// admitted rate against its quota and its throttled count to bench/results/noisy-neighbour.json
// and bench/RESULTS.md.

import http from 'node:http';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { publishNoisyNeighbour } from './report/publish.js';
import type { SubcommandModule } from './subcommands.js';
import { startInfernode, type ServerProcess } from './targets/server-process.js';
import {
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

interface Tally {
  sent: number;
  ok: number;
  throttled: number;
  errors: number;
  readonly latencies: number[];
}

function post(agent: http.Agent, server: ServerProcess, tenant: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: server.host,
        port: server.port,
        agent,
        method: 'POST',
        path: '/v2/models/mlp/infer',
        headers: {
          'content-type': 'application/json',
          'content-length': BODY.length,
          [TENANT_HEADER]: tenant,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(BODY);
  });
}

/** Sends at `rps` for `secs` (open loop: a request every 1/rps s, answered or not). */
async function send(
  server: ServerProcess,
  tenant: string,
  rps: number,
  secs: number,
): Promise<Tally> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const tally: Tally = { sent: 0, ok: 0, throttled: 0, errors: 0, latencies: [] };
  const start = performance.now();
  const end = start + secs * 1000;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; ; i++) {
    const at = start + (i * 1000) / rps;
    if (at >= end) break;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    tally.sent++;
    const t0 = performance.now();
    inFlight.push(
      post(agent, server, tenant).then((status) => {
        if (status === 200) {
          tally.ok++;
          tally.latencies.push(performance.now() - t0);
        } else if (status === 429) tally.throttled++;
        else tally.errors++;
      }),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  return tally;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function figures(t: Tally, secs: number): TenantFigures {
  const sorted = [...t.latencies].sort((a, b) => a - b);
  return {
    sent: t.sent,
    ok: t.ok,
    throttled: t.throttled,
    errors: t.errors,
    admittedPerSec: t.ok / secs,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
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
  'b-quota': { kind: 'string', default: '40', help: "Tenant B's rps quota (it sends half)" },
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
  const phases = [
    await phase('B alone', [], false, { a: null, b: sendRps.b }, secs, warmupSecs),
    await phase('A + B, quotas off', [], false, sendRps, secs, warmupSecs),
    await phase(
      'A + B, quotas on',
      [`--tenant-header=${TENANT_HEADER}`, `--quota-file=${quotaFile}`],
      true,
      sendRps,
      secs,
      warmupSecs,
    ),
  ];
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
