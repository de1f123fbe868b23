// infernode-bench shadow: what a shadow version costs the clients of the version it shadows. Two
// spawned servers load the same temporary repository's mlp, version 1 serving and the same export
// as version 2 shadowing it, one with `shadow_share` 0 (the baseline: the shadow loaded and idle)
// and one with 0.1; closed-loop clients keep `--concurrency` one-row requests in flight against
// each in turn, for `--rounds` rounds in ABBA order, so drift on a shared machine and the order
// fall on both. Writes
// bench/out/<time>-shadow/ and publishes bench/results/shadow-overhead.json with its section of
// bench/RESULTS.md.

import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { commandLine } from './entry.js';
import { closedLoop, latencyFigures, postJson } from './measure/load-window.js';
import { machineInfo } from './measure/machine-info.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { publishShadowOverhead } from './report/publish.js';
import {
  SHADOW_SCHEMA,
  type ShadowArm,
  type ShadowResult,
  type ShadowRound,
} from './shadow/shadow-result.js';
import type { SubcommandModule } from './subcommands.js';
import {
  frontEndOf,
  metricsPortOf,
  startInfernode,
  type ServerProcess,
} from './targets/server-process.js';

/** One fixed row, the same bytes for every request. */
const BODY = Buffer.from(
  JSON.stringify({
    inputs: [
      {
        name: 'INPUT0',
        datatype: 'FP32',
        shape: [1, 784],
        data: Array.from({ length: 784 }, (_, k) => Math.fround(Math.sin(k))),
      },
    ],
  }),
);

/** One request; a status other than 200 is an error. */
async function infer(agent: http.Agent, server: ServerProcess): Promise<void> {
  const { status } = await postJson(agent, server, '/v2/models/mlp/infer', BODY);
  if (status !== 200) throw new Error(`mlp answered ${status}`);
}

/** `<repo>/mlp` with version 2 a copy of version 1, shadowing it with `share`. */
async function repository(share: number): Promise<string> {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'infernode-bench-shadow-'));
  const from = path.join(DEFAULT_MODEL_REPOSITORY, 'mlp');
  const to = path.join(repo, 'mlp');
  await cp(from, to, { recursive: true });
  await cp(path.join(from, '1'), path.join(to, '2'), { recursive: true });
  const config = await readFile(path.join(from, 'config.pbtxt'), 'utf8');
  await writeFile(
    path.join(to, 'config.pbtxt'),
    `${config}parameters {\n  key: "shadow_version"\n  value: { string_value: "2" }\n}\n` +
      `parameters {\n  key: "shadow_share"\n  value: { string_value: "${share}" }\n}\n`,
  );
  return repo;
}

async function shadowCounts(server: ServerProcess): Promise<ShadowArm['shadow']> {
  const port = metricsPortOf(server);
  const text = port === null ? '' : await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const count = (outcome: string): number => {
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('infernode_shadow_requests_total{') && l.includes(`outcome="${outcome}"`),
      );
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return { compared: count('compared'), dropped: count('dropped'), failed: count('failed') };
}

export const FLAGS = {
  concurrency: { kind: 'string', default: '64', help: 'Requests in flight' },
  share: { kind: 'string', default: '0.1', help: 'shadow_share of the shadowed server' },
  rounds: { kind: 'string', default: '3', help: 'Alternating rounds per server' },
  'measure-secs': { kind: 'string', default: '10', help: 'Measured time per round, s' },
  'warmup-secs': { kind: 'string', default: '2', help: 'Warm-up per round, s' },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const concurrency = Number(values.concurrency);
  const share = Number(values.share);
  const rounds = Number(values.rounds);
  const measureSecs = Number(values['measure-secs']);
  const warmupSecs = Number(values['warmup-secs']);
  if (
    !Number.isSafeInteger(concurrency) ||
    concurrency < 1 ||
    !(share > 0 && share <= 1) ||
    !Number.isSafeInteger(rounds) ||
    rounds < 1 ||
    !(measureSecs > 0) ||
    !(warmupSecs >= 0)
  ) {
    throw new UsageError(
      '--concurrency and --rounds: integers >= 1; --share: (0, 1]; --measure-secs > 0; --warmup-secs >= 0',
    );
  }
  const repos = [await repository(0), await repository(share)];
  const servers: ServerProcess[] = [];
  const rows: ShadowRound[] = [];
  const pooled = [
    { latencies: [] as number[], errors: 0 },
    { latencies: [] as number[], errors: 0 },
  ];
  let counts: ShadowArm['shadow'][] = [];
  try {
    for (const repo of repos) servers.push(await startInfernode(repo, []));
    for (let round = 1; round <= rounds; round++) {
      // ABBA order: which server goes first alternates, so an order effect falls on both.
      const order = round % 2 === 1 ? [0, 1] : [1, 0];
      for (const i of order) {
        const server = servers[i] as ServerProcess;
        const s = i === 0 ? 0 : share;
        const r = await closedLoop(concurrency, warmupSecs, measureSecs, (agent) =>
          infer(agent, server),
        );
        const f = latencyFigures(r.latencies, measureSecs);
        const row: ShadowRound = {
          share: s,
          round,
          requests: f.requests,
          errors: r.errors,
          perSec: f.perSec,
          p50Ms: f.p50Ms,
          p99Ms: f.p99Ms,
        };
        process.stdout.write(
          `share ${s} round ${round}: ${row.perSec.toFixed(0)} req/s, p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms, ${row.errors} errors\n`,
        );
        rows.push(row);
        (pooled[i] as (typeof pooled)[number]).latencies.push(...r.latencies);
        (pooled[i] as (typeof pooled)[number]).errors += r.errors;
      }
    }
    counts = await Promise.all(servers.map(shadowCounts));
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all(repos.map((r) => rm(r, { recursive: true, force: true })));
  }
  const arm = (i: number, s: number): ShadowArm => {
    const p = pooled[i] as (typeof pooled)[number];
    const f = latencyFigures(p.latencies, measureSecs * rounds);
    return {
      share: s,
      requests: f.requests,
      errors: p.errors,
      perSec: f.perSec,
      p50Ms: f.p50Ms,
      p99Ms: f.p99Ms,
      shadow: counts[i] ?? { compared: 0, dropped: 0, failed: 0 },
    };
  };
  const baseline = arm(0, 0);
  const shadowed = arm(1, share);
  const result: ShadowResult = {
    schema: SHADOW_SCHEMA,
    startedAt: new Date().toISOString(),
    command: commandLine('shadow', argv),
    machine: machineInfo(),
    frontEnd: servers[0] === undefined ? null : frontEndOf(servers[0]),
    concurrency,
    measureSecs,
    rounds: rows,
    baseline,
    shadowed,
    p99Rise: shadowed.p99Ms / baseline.p99Ms - 1,
    target: 0.05,
  };
  process.stdout.write(
    `p99 ${baseline.p99Ms.toFixed(2)} -> ${shadowed.p99Ms.toFixed(2)} ms (${(result.p99Rise * 100).toFixed(1)} %); shadow compared ${shadowed.shadow.compared}, dropped ${shadowed.shadow.dropped}, failed ${shadowed.shadow.failed}\n`,
  );
  const out = path.join(BENCH_OUT, `${result.startedAt.replace(/[:.]/g, '-')}-shadow`);
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (values['no-publish'] !== true) {
    for (const f of await publishShadowOverhead(result)) process.stdout.write(`wrote ${f}\n`);
  }
  return baseline.errors + shadowed.errors > 0 ? 1 : 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
