// The hostile-client bench (issue 33): a spawned infernode on a repository holding identity_fp32
// takes 100 never-reading ModelStreamInfer streams on one HTTP/2 connection, then (after a fresh
// start) 4 never-reading WebSockets; for each, its RSS before, at the peak and `--after-secs`
// after the clients disconnect, and the peak of its client-memory gauge. Prints one JSON line per
// scenario, and writes them to bench/out/<time>-hostile/results.jsonl. Each scenario runs once per
// glibc malloc set-up asked for: `glibc` (its defaults) and `deployed` (the environment npm start,
// the systemd unit and the manifests set: src/memory/malloc-environment.ts). Extra arguments after
// `--` go to infernode (e.g. --client-memory-budget=0).
//
//   node dist/bench/cli.js hostile-clients [--front-end uws|node] [--after-secs 10]
//     [--malloc glibc,deployed] [-- <server flags>]

import { appendFile, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEPLOYED_MALLOC_ENV } from 'infernode/tooling';
import { BENCH_OUT, REPO_ROOT } from './paths.js';
import { stalledGrpcStreams, stalledWebSockets } from './soak/hostile-clients.js';
import { measureHostile, mib, type HostileMeasurement } from './soak/hostile-scenario.js';
import { startInfernode, type ServerProcess } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, splitRest, type FlagTable } from './options/flag-parser.js';

const IDENTITY = path.join(REPO_ROOT, 'test', 'fixtures', 'repository', 'identity_fp32');

const MALLOC_SETUPS: Record<string, NodeJS.ProcessEnv> = {
  glibc: withoutMallocEnv(process.env),
  deployed: { ...withoutMallocEnv(process.env), ...DEPLOYED_MALLOC_ENV },
};

function withoutMallocEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('MALLOC_')));
}

interface Run {
  readonly repo: string;
  readonly serverArgs: readonly string[];
  readonly afterMs: number;
  readonly malloc: string;
  readonly results: string;
}

async function scenario(
  name: string,
  run: Run,
  open: (server: ServerProcess) => ReturnType<typeof stalledGrpcStreams>,
): Promise<void> {
  const { repo, serverArgs, afterMs, malloc } = run;
  const server = await startInfernode(repo, serverArgs, MALLOC_SETUPS[malloc]);
  try {
    const metricsPort = metricsPortOf(server);
    const m: HostileMeasurement = await measureHostile(() => open(server), {
      pid: server.pid,
      metricsBase: `http://127.0.0.1:${metricsPort}`,
      stallMs: 12_000,
      afterMs,
    });
    const line =
      JSON.stringify({
        scenario: name,
        malloc,
        serverArgs,
        baseline: mib(m.baselineRss),
        peakGrowth: mib(m.peakRss - m.baselineRss),
        [`growth${afterMs / 1000}sAfter`]: mib(m.afterRss - m.baselineRss),
        requestsTaken: m.sent,
        gaugePeak: m.peakReserved === null ? null : mib(m.peakReserved),
        endedByServer: m.ends.length,
      }) + '\n';
    process.stdout.write(line);
    await appendFile(run.results, line);
  } finally {
    await server.stop();
  }
}

function metricsPortOf(server: ServerProcess): number {
  for (const line of server.lines) {
    if (!line.includes('"metricsPort"')) continue;
    return (JSON.parse(line) as { metricsPort: number }).metricsPort;
  }
  return 0;
}

/** Every flag of `infernode-bench hostile-clients`: parsing and its --help read this table. */
export const FLAGS = {
  'front-end': {
    kind: 'string',
    default: 'auto',
    help: 'infernode --http-front-end: auto | uws | node',
  },
  'after-secs': {
    kind: 'string',
    default: '10',
    help: 'RSS is read this long after the clients disconnect, s',
  },
  malloc: {
    kind: 'string',
    default: 'glibc,deployed',
    help: 'Comma list of glibc (its defaults), deployed (the shipped malloc environment)',
  },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { flags, rest: positionals } = splitRest(argv);
  const { values } = parseFlags(flags, FLAGS);
  const mallocs = (values.malloc ?? '').split(',');
  for (const m of mallocs) {
    if (MALLOC_SETUPS[m] === undefined)
      throw new Error(`--malloc: expected glibc or deployed, got "${m}"`);
  }
  const afterMs = Number(values['after-secs']) * 1000;
  const serverArgs = [`--http-front-end=${values['front-end']}`, ...positionals];
  const out = path.join(BENCH_OUT, `${new Date().toISOString().replace(/[:.]/g, '-')}-hostile`);
  await mkdir(out, { recursive: true });
  const results = path.join(out, 'results.jsonl');
  const repo = await mkdtemp(path.join(os.tmpdir(), 'infernode-hostile-'));
  try {
    await cp(IDENTITY, path.join(repo, 'identity_fp32'), { recursive: true });
    for (const malloc of mallocs) {
      const run: Run = { repo, serverArgs, afterMs, malloc, results };
      await scenario('100 stalled gRPC streams', run, (s) =>
        stalledGrpcStreams(`127.0.0.1:${s.grpcPort ?? 0}`, 100, 64),
      );
      await scenario('4 stalled WebSockets', run, (s) =>
        stalledWebSockets(`ws://127.0.0.1:${s.port}/v2/ws`, 4, 1024),
      );
    }
    process.stdout.write(`wrote ${results}\n`);
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, rest: '<infernode flags>', main };
