// infernode-bench ab: what a change costs every request. Two builds of infernode — this one
// ("head") and an older one whose dist/ is given ("base", e.g. a worktree of an earlier commit,
// built) — serve the same model repository with default flags, each started fresh, alternately in
// ABBA order for `--rounds` rounds, and `bench run` measures each at every `--concurrency` on every
// model over HTTP binary, with the server's CPU time (`--server-pid`). The figure that matters is
// the server's CPU µs per request, compared as medians over the rounds, beside the rounds' own
// spread. Writes bench/out/<time>-ab/ and publishes bench/results/per-request-ab.json with its
// section of bench/RESULTS.md.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AB_SCHEMA,
  abCells,
  type AbMeasurement,
  type AbResult,
  type AbSide,
} from './ab/ab-result.js';
import { commandLine } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { benchEntry, BENCH_OUT, DEFAULT_MODEL_REPOSITORY, DIST } from './paths.js';
import { publishPerRequestAb } from './report/publish.js';
import type { SubcommandModule } from './subcommands.js';
import { startServer, type ServerProcess } from './targets/server-process.js';

export const FLAGS = {
  'base-dist': {
    kind: 'string',
    default: '',
    help: "The older build's dist/ directory (required)",
  },
  'base-label': { kind: 'string', default: '', help: "Name for the base (its checkout's commit)" },
  models: { kind: 'string', default: 'simple,mlp', help: 'Models, comma-separated' },
  concurrency: { kind: 'string', default: '1,16', help: 'Requests in flight, comma-separated' },
  rounds: { kind: 'string', default: '3', help: 'Rounds; each measures base and head once' },
  'measurement-interval': { kind: 'string', default: '4000', help: 'bench run window, ms' },
  'model-repository': {
    kind: 'string',
    default: DEFAULT_MODEL_REPOSITORY,
    help: 'Repository both builds serve',
  },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

/** The commit checked out where `dist` lies, or 'unknown'. */
function commitOf(dist: string): string {
  try {
    return execFileSync('git', ['-C', path.dirname(dist), 'rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

function startBuild(dist: string, repository: string): Promise<ServerProcess> {
  return startServer('infernode', [
    path.join(dist, 'src', 'cli', 'main.js'),
    `--model-repository=${repository}`,
    '--http-address=127.0.0.1',
    '--http-port=0',
    '--metrics-port=0',
    '--grpc-address=127.0.0.1',
    '--grpc-port=0',
  ]);
}

interface RunSummary {
  readonly reqPerSec: number;
  readonly errors: number;
  readonly latency: { readonly p50Us: number; readonly p99Us: number };
  readonly cpu: { readonly server: number };
}

/** One `bench run` level against `server`, in a child process (the same harness users run). */
async function measure(
  server: ServerProcess,
  model: string,
  concurrency: number,
  intervalMs: number,
  out: string,
): Promise<RunSummary> {
  const json = path.join(out, `${model}-c${concurrency}-${Date.now()}.json`);
  const args = [
    benchEntry('cli.js'),
    'run',
    '-m',
    model,
    '-u',
    `${server.host}:${server.port}`,
    '--binary',
    '--concurrency-range',
    `${concurrency}:${concurrency}:1`,
    '-p',
    String(intervalMs),
    '-r',
    '4',
    '--server-pid',
    String(server.pid),
    '--json',
    json,
    '--out-dir',
    out,
  ];
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  if (code !== 0) throw new Error(`bench run exited ${code}: ${args.join(' ')}`);
  const result = JSON.parse(await readFile(json, 'utf8')) as {
    targets: { levels: { summary: RunSummary }[] }[];
  };
  const summary = result.targets[0]?.levels[0]?.summary;
  if (summary === undefined) throw new Error(`${json}: no level measured`);
  return summary;
}

const list = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const baseDist = path.resolve(String(values['base-dist']));
  const models = list(String(values.models));
  const concurrencies = list(String(values.concurrency)).map(Number);
  const rounds = Number(values.rounds);
  const intervalMs = Number(values['measurement-interval']);
  const repository = path.resolve(String(values['model-repository']));
  if (values['base-dist'] === '' || !existsSync(path.join(baseDist, 'src', 'cli', 'main.js'))) {
    throw new UsageError(
      `--base-dist: expected a built dist/ directory with src/cli/main.js, got '${String(values['base-dist'])}'`,
    );
  }
  if (
    models.length === 0 ||
    concurrencies.some((c) => !Number.isSafeInteger(c) || c < 1) ||
    !Number.isSafeInteger(rounds) ||
    rounds < 1 ||
    !(intervalMs >= 100)
  ) {
    throw new UsageError(
      '--models: at least one; --concurrency: integers >= 1; --rounds: an integer >= 1; --measurement-interval: >= 100 ms',
    );
  }
  const startedAt = new Date().toISOString();
  const out = path.join(BENCH_OUT, `${startedAt.replace(/[:.]/g, '-')}-ab`);
  await mkdir(out, { recursive: true });
  const dists: Record<AbSide, string> = { base: baseDist, head: DIST };
  const measurements: AbMeasurement[] = [];
  for (let round = 1; round <= rounds; round++) {
    // ABBA: odd rounds start with base, even rounds with head, so drift falls on both.
    const order: AbSide[] = round % 2 === 1 ? ['base', 'head'] : ['head', 'base'];
    for (const side of order) {
      const server = await startBuild(dists[side], repository);
      try {
        for (const model of models) {
          for (const concurrency of concurrencies) {
            const s = await measure(server, model, concurrency, intervalMs, out);
            const m: AbMeasurement = {
              side,
              model,
              concurrency,
              round,
              reqPerSec: s.reqPerSec,
              p50Ms: s.latency.p50Us / 1000,
              p99Ms: s.latency.p99Us / 1000,
              cpuUsPerRequest: s.reqPerSec > 0 ? (s.cpu.server / s.reqPerSec) * 1e6 : NaN,
              errors: s.errors,
            };
            measurements.push(m);
            process.stdout.write(
              `round ${round} ${side} ${model} c${concurrency}: ${m.reqPerSec.toFixed(0)} req/s, ` +
                `p50 ${m.p50Ms.toFixed(2)} p99 ${m.p99Ms.toFixed(2)} ms, ` +
                `server ${m.cpuUsPerRequest.toFixed(0)} µs CPU/req, ${m.errors} errors\n`,
            );
          }
        }
      } finally {
        await server.stop();
      }
    }
  }
  const label = String(values['base-label']);
  const result: AbResult = {
    schema: AB_SCHEMA,
    startedAt,
    command: commandLine('ab', argv),
    machine: machineInfo(),
    base: label !== '' ? label : commitOf(baseDist),
    head: commitOf(DIST),
    measurementMs: intervalMs,
    rounds,
    measurements,
  };
  for (const c of abCells(result)) {
    process.stdout.write(
      `${c.model} c${c.concurrency}: CPU µs/req base ${c.base.cpuUsPerRequest.toFixed(0)} ` +
        `head ${c.head.cpuUsPerRequest.toFixed(0)} (medians of ${rounds})\n`,
    );
  }
  await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (values['no-publish'] !== true) {
    for (const f of await publishPerRequestAb(result)) process.stdout.write(`wrote ${f}\n`);
  }
  return measurements.some((m) => m.errors > 0) ? 1 : 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
