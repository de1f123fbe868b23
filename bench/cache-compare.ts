// `infernode-bench cache` (npm run bench:cache): issue 30's response-cache table. For each cache —
// none (the model as it is, a server without --cache-config) and each --cache-config given
// (local by default; a Redis config passes through as it is) — and each hit ratio, a fresh
// infernode serves the model (with `response_cache { enable: true }` when cached) and `bench run`'s
// load generator sends that share of repeated inputs (--cache-hit-ratio) at each concurrency:
// throughput, p50, p99 and the server's own hit count per row, with the targets computed.
// `--memory-secs N` runs the memory run instead: every input fresh against a small local budget
// for N seconds, RSS sampled each second. Writes bench/out/<time>-cache/ and publishes
// bench/results/response-cache[-memory].json with its section of bench/RESULTS.md.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CACHE_MEMORY_SCHEMA,
  CACHE_SCHEMA,
  memoryVerdict,
  type CacheMemoryResult,
  type CacheResult,
  type CacheRow,
} from './cache/cache-result.js';
import { cachedRepository } from './cache/cached-repository.js';
import { flushRedisCache } from './cache/flush-redis.js';
import { sampleServer } from './cache/memory-run.js';
import { commandLine, onInterrupt } from './entry.js';
import type { LoadLevel } from './load/messages.js';
import { machineInfo } from './measure/machine-info.js';
import { fetchSignature } from './model/model-signature.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { parseBenchFlags } from './options/parse-flags.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { prepareRun } from './prepare-run.js';
import { Progress } from './report/progress.js';
import { publishResponseCache, publishResponseCacheMemory } from './report/publish.js';
import type { TargetResult } from './report/result-types.js';
import type { SubcommandModule } from './subcommands.js';
import { runHttpTarget } from './targets/http-target.js';
import { metricsPortOf, startInfernode, type ServerProcess } from './targets/server-process.js';

const DEFAULT_CACHE = 'local,size=67108864';

/** Every flag of `infernode-bench cache`: parsing and its --help read this table. */
export const FLAGS = {
  'model-name': { kind: 'string', short: 'm', default: 'mlp', help: 'Model to measure' },
  'cache-config': {
    kind: 'string',
    repeat: true,
    help: `A cached server's --cache-config, passed as it is (repeatable) (${DEFAULT_CACHE})`,
  },
  'hit-ratios': { kind: 'string', default: '0,0.5,0.9', help: 'Comma list of --cache-hit-ratio' },
  concurrency: { kind: 'string', default: '1,64', help: 'Comma list of requests in flight' },
  'measurement-interval': { kind: 'uint', short: 'p', default: '2000', help: 'Window, ms' },
  'max-trials': { kind: 'uint', short: 'r', default: '5', help: 'Windows per level at most' },
  json: { kind: 'flag', help: 'HTTP JSON bodies (default: the binary tensor extension)' },
  shape: { kind: 'string', repeat: true, help: 'name:d1,d2 for variable dims (repeatable)' },
  'memory-secs': {
    kind: 'uint',
    default: '0',
    help: 'Instead of the table: the memory run for this many seconds (issue 30: 120)',
  },
  'memory-budget': {
    kind: 'uint',
    default: '4194304',
    help: 'The memory run: bytes of the local cache (--cache-config local,size=N)',
  },
  'memory-rate': {
    kind: 'uint',
    default: '200',
    help:
      'The memory run: requests/s, open loop, so RSS is compared at one rate whatever else ' +
      'runs on the machine; 0: closed loop at --memory-concurrency',
  },
  'memory-concurrency': {
    kind: 'uint',
    default: '16',
    help: 'The memory run with --memory-rate 0: in flight',
  },
  'model-repository': { kind: 'string', help: 'Repository holding the model (model_repository)' },
  'out-dir': { kind: 'string', help: 'Directory for run outputs (bench/out)' },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

function list(flag: string, text: string, ok: (n: number) => boolean): number[] {
  const values = text.split(',').map(Number);
  if (values.length === 0 || !values.every(ok)) {
    throw new UsageError(`--${flag}: got "${text}"`);
  }
  return values;
}

interface Settings {
  readonly model: string;
  readonly repository: string;
  readonly benchArgs: readonly string[];
  readonly progress: Progress;
}

/** One fresh server, the load at every level, the server stopped; the target's levels. */
async function measure(
  s: Settings,
  repository: string,
  serverArgs: readonly string[],
  extraBenchArgs: readonly string[],
  levels: readonly LoadLevel[],
  during?: (server: ServerProcess) => () => Promise<void>,
): Promise<TargetResult> {
  const { options } = parseBenchFlags(
    ['-m', s.model, '--model-repository', repository, ...s.benchArgs, ...extraBenchArgs],
    'bench',
  );
  const server = await startInfernode(repository, serverArgs);
  const forget = onInterrupt(() => server.stop());
  try {
    const sig = await fetchSignature(`http://${server.host}:${server.port}`, s.model, '');
    const prepared = prepareRun(sig, '', options);
    const finish = during?.(server);
    const target = await runHttpTarget(
      {
        id: 'infernode',
        kind: 'infernode',
        label: serverArgs.join(' ') || 'no cache',
        description: 'infernode started for this row',
        host: server.host,
        port: server.port,
        pid: server.pid,
        notes: [],
      },
      prepared.bodies,
      prepared.outputs,
      levels,
      options,
      s.progress,
    );
    await finish?.();
    return target;
  } finally {
    forget();
    await server.stop();
  }
}

async function table(s: Settings, values: Values, argv: readonly string[]): Promise<number> {
  const ratios = list('hit-ratios', values['hit-ratios'] ?? '', (n) => n >= 0 && n <= 1);
  const concurrencies = list(
    'concurrency',
    values.concurrency ?? '',
    (n) => Number.isSafeInteger(n) && n >= 1,
  );
  const configs = values['cache-config'].length > 0 ? values['cache-config'] : [DEFAULT_CACHE];
  const levels = concurrencies.map((c): LoadLevel => ({ kind: 'concurrency', concurrency: c }));
  const startedAt = new Date().toISOString();
  const cached = await cachedRepository(s.repository, s.model);
  const rows: CacheRow[] = [];
  try {
    // Ratio by ratio, each cache in turn: the rows a target compares run minutes apart at most,
    // not the whole uncached series before the cached one (drift on a shared machine).
    for (const ratio of ratios) {
      for (const cache of ['none', ...configs]) {
        // A Redis outlives the row's server: empty it, so the row starts cold as a local one does.
        if (cache !== 'none') await flushRedisCache(cache);
        const target = await measure(
          s,
          cache === 'none' ? s.repository : cached.dir,
          cache === 'none' ? [] : [`--cache-config=${cache}`],
          [
            '--cache-hit-ratio',
            String(ratio),
            '-p',
            values['measurement-interval'] ?? '2000',
            '-r',
            values['max-trials'] ?? '5',
          ],
          levels,
        );
        for (const l of target.levels) {
          const v = l.summary.server;
          const row: CacheRow = {
            cache,
            hitRatio: ratio,
            concurrency: l.value,
            reqPerSec: l.summary.reqPerSec,
            p50Ms: l.summary.latency.p50Us / 1000,
            p99Ms: l.summary.latency.p99Us / 1000,
            errors: l.summary.errors,
            stable: l.stable,
            serverHits: v?.cacheHits ?? 0,
            serverMisses: v?.cacheMisses ?? 0,
            avgHitUs: v?.avgCacheHitUs ?? 0,
            avgMissUs: v?.avgCacheMissUs ?? 0,
            serverCpuUsPerReq:
              l.summary.cpu.server === null || l.summary.reqPerSec === 0
                ? null
                : (l.summary.cpu.server * 1e6) / l.summary.reqPerSec,
          };
          rows.push(row);
          s.progress.log(
            `cache ${cache}, ${ratio * 100} % hits sent, ${row.concurrency} in flight: ` +
              `${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50Ms.toFixed(3)} ms, ` +
              `p99 ${row.p99Ms.toFixed(3)} ms, ${row.errors} errors`,
          );
        }
      }
    }
  } finally {
    await cached.remove();
  }
  const result: CacheResult = {
    schema: CACHE_SCHEMA,
    startedAt,
    command: commandLine('cache', argv),
    machine: machineInfo(),
    model: s.model,
    transport: values.json === true ? 'HTTP JSON' : 'HTTP binary',
    // Shown grouped by cache, in the order the caches were given.
    rows: ['none', ...configs].flatMap((c) => rows.filter((r) => r.cache === c)),
  };
  await write(result, 'cache', values, publishResponseCache);
  return rows.some((r) => r.errors > 0) ? 1 : 0;
}

async function memory(s: Settings, values: Values, argv: readonly string[]): Promise<number> {
  const seconds = Number(values['memory-secs']);
  const budget = Number(values['memory-budget']);
  const rate = Number(values['memory-rate']);
  const concurrency = Number(values['memory-concurrency']);
  const level: LoadLevel =
    rate > 0
      ? { kind: 'request-rate', rate, distribution: 'constant', seed: 1 }
      : { kind: 'concurrency', concurrency };
  const cacheConfig = `local,size=${budget}`;
  const startedAt = new Date().toISOString();
  const cached = await cachedRepository(s.repository, s.model);
  let samples: Promise<CacheMemoryResult['samples']> = Promise.resolve([]);
  let startedAtMs = Date.now();
  let target: TargetResult;
  try {
    // 10-second windows until the time is up: a stability of 0 % is never met, so every window
    // runs; the generator's fresh-input counter spans them all.
    target = await measure(
      s,
      cached.dir,
      [`--cache-config=${cacheConfig}`],
      [
        '--cache-hit-ratio',
        '0',
        '-p',
        '10000',
        '-r',
        String(Math.max(1, Math.ceil(seconds / 10))),
        '-s',
        '0',
      ],
      [level],
      (server) => {
        const port = metricsPortOf(server);
        if (port === null) throw new Error('infernode reported no metrics port');
        const sampler = sampleServer(server, port);
        startedAtMs = sampler.startedAtMs;
        return async () => {
          samples = sampler.stop();
          await samples;
        };
      },
    );
  } finally {
    await cached.remove();
  }
  const windows = target.levels.flatMap((l) => l.windows);
  const result: CacheMemoryResult = {
    schema: CACHE_MEMORY_SCHEMA,
    startedAt,
    command: commandLine('cache', argv),
    machine: machineInfo(),
    model: s.model,
    cacheConfig,
    budgetBytes: budget,
    concurrency,
    ...(rate > 0 ? { rate } : {}),
    seconds,
    requests: windows.reduce((n, w) => n + w.requests, 0),
    errors: windows.reduce((n, w) => n + w.errors, 0),
    samples: await samples,
    windows: windows.map((w) => ({
      t: Math.round((w.startMs - startedAtMs) / 1000),
      reqPerSec: w.reqPerSec,
    })),
  };
  const v = memoryVerdict(result);
  s.progress.log(
    `memory run: cache full at ${v.fullAtS ?? 'never'} s, cache bytes max ${v.maxCacheBytes} of ` +
      `${budget}; RSS mean first 30 s full ${(v.firstMeanBytes / 1048576).toFixed(1)} MiB, ` +
      `last 30 s ${(v.lastMeanBytes / 1048576).toFixed(1)} MiB: ${v.flat ? 'flat' : 'NOT flat'} ` +
      `(req/s ${v.firstReqPerSec?.toFixed(0) ?? '?'} then, ${v.lastReqPerSec?.toFixed(0) ?? '?'} last)`,
  );
  await write(result, 'cache-memory', values, publishResponseCacheMemory);
  return result.errors > 0 || v.maxCacheBytes > budget ? 1 : 0;
}

async function write<T extends { startedAt: string }>(
  result: T,
  name: string,
  values: Values,
  publisher: (r: T) => Promise<string[]>,
): Promise<void> {
  const outDir = path.resolve(values['out-dir'] ?? BENCH_OUT);
  const out = path.join(outDir, `${result.startedAt.replace(/[:.]/g, '-')}-${name}`);
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`wrote ${path.join(out, 'result.json')}\n`);
  if (values['no-publish'] === true) return;
  for (const f of await publisher(result)) process.stdout.write(`wrote ${f}\n`);
}

type Values = ReturnType<typeof parseFlags<typeof FLAGS>>['values'];

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const progress = new Progress();
  const s: Settings = {
    model: values['model-name'] ?? 'mlp',
    repository: path.resolve(values['model-repository'] ?? DEFAULT_MODEL_REPOSITORY),
    benchArgs: [
      ...(values.json === true ? [] : ['--binary']),
      ...values.shape.flatMap((v) => ['--shape', v]),
    ],
    progress,
  };
  try {
    return Number(values['memory-secs']) > 0
      ? await memory(s, values, argv)
      : await table(s, values, argv);
  } finally {
    progress.clear();
  }
}

export const command: SubcommandModule = { flags: FLAGS, main };
