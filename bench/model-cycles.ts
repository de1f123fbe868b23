// The load/unload memory bench (issue 9, item 6): a spawned infernode in explicit mode loads
// `mlp`, answers a few inferences and unloads it, N times, and the server's RSS is read from
// /proc after every cycle; once per allocator asked for (glibc, or jemalloc / tcmalloc through
// LD_PRELOAD), each in a fresh server. Writes bench/out/<time>-cycles/ and publishes
// bench/results/model-cycles.{json,csv,png} and its section of bench/RESULTS.md.
//
//   npm run bench:cycles -- [--cycles 200] [--allocators glibc,jemalloc] [--no-publish]

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandLine, onInterrupt } from './entry.js';
import { HttpConnection } from './load/http-connection.js';
import { InspectorGc, inspectorUrl } from './measure/inspector-gc.js';
import { linearFit } from './measure/linear-fit.js';
import { machineInfo } from './measure/machine-info.js';
import { mapsLibrary, processMemory, type ProcessMemory } from './measure/process-memory.js';
import {
  parseAllocators,
  resolveAllocator,
  type Allocator,
  type AllocatorId,
} from './model-management/allocators.js';
import {
  CYCLES_SCHEMA,
  type CycleCurve,
  type CycleSample,
  type CyclesResult,
} from './model-management/cycles-result.js';
import { inferOnce, MLP, mlpInferRequest } from './model-management/mlp-request.js';
import { RepositoryRpc } from './model-management/repository-rpc.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { cyclesCsv, cyclesPlotModel, perCycle } from './report/model-cycles-report.js';
import { plotPng } from './report/plot-png.js';
import { publishModelCycles } from './report/publish.js';
import { grpcPortOf, startInfernode, type ServerProcess } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

interface CyclesOptions {
  readonly cycles: number;
  readonly inferences: number;
  readonly fitFrom: number;
  readonly allocators: readonly AllocatorId[];
  readonly modelRepository: string;
  readonly publish: boolean;
}

const SERVER_ARGS = ['--model-control-mode=explicit'];
/** Two connections: both of mlp's instances can be busy at once, so both sessions run. */
const CONNECTIONS = 2;

function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number >= 1`);
  return n;
}

/** Every flag of `infernode-bench cycles`: parsing and its --help read this table. */
export const FLAGS = {
  cycles: { kind: 'string', default: '200', help: 'Load/infer/unload cycles per allocator' },
  inferences: { kind: 'string', default: '8', help: 'Inferences per cycle' },
  'fit-from': {
    kind: 'string',
    default: '20',
    help: 'Fit RSS growth per cycle from this cycle on',
  },
  allocators: {
    kind: 'string',
    default: 'glibc,jemalloc',
    help: 'Comma list of glibc, jemalloc, tcmalloc (each in a fresh server)',
  },
  'model-repository': {
    kind: 'string',
    default: DEFAULT_MODEL_REPOSITORY,
    help: 'Repository holding mlp',
  },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

function parseOptions(argv: readonly string[]): CyclesOptions {
  const values = parseFlags(argv, FLAGS).values;
  const cycles = positive('cycles', values.cycles);
  const fitFrom = positive('fit-from', values['fit-from']);
  if (fitFrom >= cycles) throw new UsageError('--fit-from must be below --cycles');
  return {
    cycles,
    inferences: positive('inferences', values.inferences),
    fitFrom,
    allocators: parseAllocators(values.allocators),
    modelRepository: path.resolve(values['model-repository']),
    publish: !values['no-publish'],
  };
}

function memoryOf(server: ServerProcess): ProcessMemory {
  const m = processMemory(server.pid);
  if (m === null) throw new Error(`cannot read /proc/${server.pid}/status (Linux only)`);
  return m;
}

async function runCurve(options: CyclesOptions, allocator: Allocator): Promise<CycleCurve> {
  const server = await startInfernode(options.modelRepository, SERVER_ARGS, {
    ...process.env,
    ...allocator.env,
  });
  const forget = onInterrupt(() => server.stop());
  const grpcPort = grpcPortOf(server);
  if (grpcPort === null) throw new Error('the server reported no gRPC port');
  const rpc = new RepositoryRpc(`${server.host}:${grpcPort}`);
  const conns = await Promise.all(
    Array.from({ length: CONNECTIONS }, () => HttpConnection.open(server.host, server.port)),
  );
  const requests = conns.map((_, i) => mlpInferRequest(server.host, server.port, i + 1));
  let gc: InspectorGc | null = null;
  try {
    if (allocator.gcAfterUnload) {
      const url = inspectorUrl(server.lines);
      if (url === null) throw new Error('the server printed no inspector URL');
      gc = await InspectorGc.connect(url);
    }
    const preloadVerified = allocator.mapped === null || mapsLibrary(server.pid, allocator.mapped);
    const baseline = memoryOf(server);
    const samples: CycleSample[] = [];
    const began = performance.now();
    for (let cycle = 1; cycle <= options.cycles; cycle += 1) {
      const t0 = performance.now();
      await rpc.load(MLP);
      const loadMs = performance.now() - t0;
      const perConnection = Math.ceil(options.inferences / CONNECTIONS);
      await Promise.all(
        conns.map(async (conn, i) => {
          for (let k = 0; k < perConnection; k += 1) await inferOnce(conn, requests[i] as Buffer);
        }),
      );
      const loaded = memoryOf(server);
      const t1 = performance.now();
      await rpc.unload(MLP);
      const unloadMs = performance.now() - t1;
      await gc?.collect();
      const after = memoryOf(server);
      samples.push({
        cycle,
        loadedRssBytes: loaded.rssBytes,
        loadedThreads: loaded.threads,
        rssBytes: after.rssBytes,
        threads: after.threads,
        loadMs,
        unloadMs,
      });
      if (cycle % 20 === 0 || cycle === 1) {
        process.stderr.write(
          `${allocator.id}: cycle ${cycle}/${options.cycles}, RSS ${(after.rssBytes / 2 ** 20).toFixed(1)} MiB ` +
            `(loaded ${(loaded.rssBytes / 2 ** 20).toFixed(1)}), threads ${after.threads}\n`,
        );
      }
    }
    const fit = linearFit(
      samples.filter((s) => s.cycle >= options.fitFrom).map((s) => [s.cycle, s.rssBytes] as const),
    );
    return {
      allocator: allocator.id,
      label: allocator.label,
      env: allocator.env,
      preloadVerified,
      baselineRssBytes: baseline.rssBytes,
      baselineThreads: baseline.threads,
      samples,
      fit,
      peakRssBytes: memoryOf(server).peakRssBytes,
      durationMs: performance.now() - began,
    };
  } finally {
    gc?.close();
    for (const c of conns) c.close();
    rpc.close();
    await server.stop();
    forget();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  // Resolve every allocator before the first curve: a missing library should not cost a curve.
  const allocators = options.allocators.map(resolveAllocator);
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const curves: CycleCurve[] = [];
  for (const a of allocators) curves.push(await runCurve(options, a));
  const result: CyclesResult = {
    schema: CYCLES_SCHEMA,
    command: commandLine('cycles', argv),
    startedAt,
    machine,
    model: MLP,
    cycles: options.cycles,
    inferencesPerCycle: Math.ceil(options.inferences / CONNECTIONS) * CONNECTIONS,
    fitFrom: options.fitFrom,
    serverArgs: [`--model-repository=${path.basename(options.modelRepository)}`, ...SERVER_ARGS],
    curves,
  };
  const dir = path.join(
    BENCH_OUT,
    `${startedAt.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z')}-cycles-${MLP}`,
  );
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(path.join(dir, 'cycles.csv'), cyclesCsv(result));
  await writeFile(path.join(dir, 'cycles.png'), plotPng(cyclesPlotModel(result)));
  process.stdout.write(`wrote ${path.relative(process.cwd(), dir)}/\n`);
  for (const c of curves) {
    const last = c.samples[c.samples.length - 1];
    process.stdout.write(
      `${c.label}: ${(c.baselineRssBytes / 2 ** 20).toFixed(1)} MiB before the first load, ` +
        `${((last?.rssBytes ?? 0) / 2 ** 20).toFixed(1)} MiB after cycle ${options.cycles}, ` +
        `${perCycle(c.fit.slope)} per cycle over cycles ${options.fitFrom}-${options.cycles} (r² ${c.fit.r2.toFixed(2)})\n`,
    );
  }
  if (options.publish) {
    for (const f of await publishModelCycles(result)) {
      process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
    }
  }
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
