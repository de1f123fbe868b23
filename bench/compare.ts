// `infernode-bench compare` (`npm run bench:compare`): the same model, batch size and load levels against raw onnxruntime-node
// (no server), a naive Fastify server and infernode (or infernode over each of its transports,
// --targets protocols: HTTP JSON and binary, WebSocket, gRPC unary and stream; or, --thread-sweep,
// over each transport at each --http-thread-count and as N processes), one after another
// on this machine, in one run; prints the comparison,
// writes JSON/CSV/HTML/PNG, and publishes bench/results/ and bench/RESULTS.md (unless --no-publish).

import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadModelConfig } from 'infernode/tooling';
import { commandLine, onInterrupt } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { signatureFromConfig } from './model/model-signature.js';
import { flagsFor, refusalsFor } from './options/flag-table.js';
import { parseBenchFlags } from './options/parse-flags.js';
import { UsageError } from './options/usage-error.js';
import { benchEntry } from './paths.js';
import type { SubcommandModule } from './subcommands.js';
import { binaryRequestBody } from './model/request-body.js';
import type { BenchOptions, CompareTarget } from './options/bench-options.js';
import { prepareRun, type PreparedRun } from './prepare-run.js';
import { caveats, comparisonTable, limitsTable } from './report/comparison.js';
import { Progress } from './report/progress.js';
import {
  hasProtocolTargets,
  isProtocolRun,
  protocolTable,
  targetVerdicts,
} from './report/protocol-table.js';
import {
  cpuPerKiloTable,
  isOverheadRun,
  overheadTable,
  overheadVerdicts,
} from './report/overhead-table.js';
import { publish } from './report/publish.js';
import { isThreadSweepRun, threadSweepTable } from './report/thread-table.js';
import { stageTable } from './report/stage-report.js';
import { RESULT_SCHEMA, type BenchResult, type TargetResult } from './report/result-types.js';
import { textTable } from './report/tables.js';
import { writeOutputs } from './report/write-outputs.js';
import { sweepLevels } from './sweep/run-sweep.js';
import { runHttpTarget, type HttpTargetSpec } from './targets/http-target.js';
import { rawInit, rawSessionThreads, runRawOrtTargets } from './targets/raw-ort-target.js';
import {
  frontEndOf,
  servedThreadsOf,
  startInfernode,
  startServer,
  type ServerProcess,
} from './targets/server-process.js';
import { unbatchedRepository } from './targets/unbatched-repository.js';
import { runGrpcTarget } from './targets/grpc-target.js';
import { runWsTarget } from './targets/ws-target.js';
import type { LoadLevel } from './load/messages.js';

/** -x, or the highest numbered version directory (Triton's default `latest: 1` policy). */
async function modelVersionDir(modelDir: string, requested: string): Promise<string> {
  const entries = await readdir(modelDir, { withFileTypes: true }).catch(() => {
    throw new UsageError(`no model directory ${modelDir} (see --model-repository)`);
  });
  const versions = entries
    .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Number(b) - Number(a));
  if (requested !== '') {
    if (!versions.includes(requested)) {
      throw new UsageError(
        `-x ${requested}: ${modelDir} has versions ${versions.join(', ') || 'none'}`,
      );
    }
    return requested;
  }
  const latest = versions[0];
  if (latest === undefined) throw new UsageError(`${modelDir} has no numbered version directory`);
  return latest;
}

async function withServer<T>(
  start: () => Promise<ServerProcess>,
  f: (s: ServerProcess) => Promise<T>,
): Promise<T> {
  const server = await start();
  const forget = onInterrupt(() => server.stop());
  try {
    return await f(server);
  } finally {
    forget();
    await server.stop();
  }
}

/**
 * The naive Fastify server twice: with ORT's default session options (its intra-op pool spins on
 * every core), and with one intra-op and one inter-op thread, the per-request overhead issue's fair
 * baseline for what an in-thread server costs.
 */
const NAIVE_VARIANTS = [
  {
    id: 'naive-fastify',
    label: 'naive Fastify',
    args: [],
    description:
      'Fastify 5 with one onnxruntime-node session on the main thread (default session options), KServe v2 JSON',
  },
  {
    id: 'naive-fastify-1t',
    label: 'naive Fastify 1 thread',
    args: ['--threads', '1'],
    description:
      'Fastify 5 with one onnxruntime-node session on the main thread (intraOpNumThreads 1, interOpNumThreads 1), KServe v2 JSON',
  },
] as const satisfies readonly {
  id: CompareTarget;
  label: string;
  args: readonly string[];
  description: string;
}[];

/** infernode as configured, once per transport asked for (HTTP JSON is the classic comparator). */
const INFERNODE_TRANSPORTS = [
  { id: 'infernode', label: 'infernode', name: 'HTTP JSON', wire: 'json' },
  { id: 'infernode-binary', label: 'infernode HTTP binary', name: 'HTTP binary', wire: 'binary' },
  { id: 'infernode-ws', label: 'infernode WebSocket', name: 'WebSocket', wire: 'ws' },
  { id: 'infernode-grpc', label: 'infernode gRPC unary', name: 'gRPC unary', wire: 'grpc' },
  {
    id: 'infernode-grpc-stream',
    label: 'infernode gRPC stream',
    name: 'gRPC stream',
    wire: 'grpc-stream',
  },
] as const satisfies readonly { id: CompareTarget; label: string; name: string; wire: string }[];

/** A freshly started infernode under one transport: each transport gets the machine to itself. */
async function runInfernode(
  transport: (typeof INFERNODE_TRANSPORTS)[number],
  options: BenchOptions,
  prepared: PreparedRun,
  levels: readonly LoadLevel[],
  progress: Progress,
): Promise<TargetResult> {
  const repo = path.relative(process.cwd(), options.modelRepository) || '.';
  return withServer(
    () => startInfernode(options.modelRepository, options.serverArgs),
    (s) => {
      const spec: HttpTargetSpec = {
        id: transport.id,
        kind: 'infernode',
        label: transport.label,
        description: `infernode with --model-repository ${repo}`,
        host: s.host,
        // A gRPC target's address is the gRPC port (it reads statistics over gRPC too).
        port: transportPort(transport, s),
        pid: s.pid,
        notes: [
          `HTTP front end: ${frontEndOf(s) ?? 'unknown'}`,
          ...(options.serverArgs.length > 0
            ? [`server flags: ${options.serverArgs.join(' ')}`]
            : []),
        ],
      };
      return runTransport(transport, spec, options, prepared, levels, progress);
    },
  );
}

type InfernodeTransport = (typeof INFERNODE_TRANSPORTS)[number];

const isGrpc = (transport: InfernodeTransport): boolean =>
  transport.wire === 'grpc' || transport.wire === 'grpc-stream';

/** The port a transport's load goes to: the HTTP port, or the gRPC one. */
function transportPort(transport: InfernodeTransport, s: ServerProcess): number {
  if (!isGrpc(transport)) return s.port;
  if (s.grpcPort === null) throw new Error('infernode reported no gRPC port');
  return s.grpcPort;
}

/** Measures `spec` (one infernode, or several) over one transport. */
function runTransport(
  transport: InfernodeTransport,
  spec: HttpTargetSpec,
  options: BenchOptions,
  prepared: PreparedRun,
  levels: readonly LoadLevel[],
  progress: Progress,
): Promise<TargetResult> {
  const { outputs, sets, bodies } = prepared;
  switch (transport.wire) {
    case 'json':
      return runHttpTarget(spec, bodies, outputs, levels, options, progress);
    case 'binary':
      return runHttpTarget(
        spec,
        sets.map((s) => binaryRequestBody(s)),
        outputs,
        levels,
        { ...options, binary: true },
        progress,
      );
    case 'ws':
      return runWsTarget(spec, sets, outputs, levels, options, progress);
    case 'grpc':
      return runGrpcTarget(spec, sets, outputs, levels, options, false, progress);
    case 'grpc-stream':
      return runGrpcTarget(spec, sets, outputs, levels, options, true, progress);
  }
}

/** `count` servers started one after another, all stopped when `f` is done (or on Ctrl-C). */
async function withServers<T>(
  count: number,
  start: () => Promise<ServerProcess>,
  f: (servers: readonly ServerProcess[]) => Promise<T>,
): Promise<T> {
  const servers: ServerProcess[] = [];
  const stopAll = (): Promise<void> => Promise.all(servers.map((s) => s.stop())).then(() => {});
  const forget = onInterrupt(stopAll);
  try {
    for (let i = 0; i < count; i += 1) servers.push(await start());
    return await f(servers);
  } finally {
    forget();
    await stopAll();
  }
}

/**
 * One row set of `--thread-sweep`: infernode with `--http-thread-count=threads` over one
 * transport, or (processes > 1) the N-process reference: that many servers with one thread each on
 * their own ports, the generator's connections split over them, their stats and CPU summed.
 */
async function runScaled(
  transport: InfernodeTransport,
  threads: number,
  processes: number,
  options: BenchOptions,
  prepared: PreparedRun,
  levels: readonly LoadLevel[],
  progress: Progress,
): Promise<TargetResult> {
  const repo = path.relative(process.cwd(), options.modelRepository) || '.';
  const args = [...options.serverArgs, `--http-thread-count=${threads}`];
  const setup =
    processes > 1 ? `${processes} processes` : `${threads} thread${threads === 1 ? '' : 's'}`;
  progress.log(
    `[${transport.name}, ${setup}] starting ${processes > 1 ? `${processes} servers` : 'the server'}`,
  );
  return withServers(
    processes,
    () => startInfernode(options.modelRepository, args),
    async (servers) => {
      const [first, ...rest] = servers as [ServerProcess, ...ServerProcess[]];
      const spec: HttpTargetSpec = {
        id: `${transport.id}-${processes > 1 ? `p${processes}` : `t${threads}`}`,
        kind: 'infernode',
        label: `infernode ${transport.name}, ${setup}`,
        description:
          processes > 1
            ? `${processes} infernode processes on ${processes} ports (--http-thread-count=1 each), --model-repository ${repo}, the load split evenly over them`
            : `infernode with --http-thread-count=${threads}, --model-repository ${repo}`,
        host: first.host,
        port: transportPort(transport, first),
        pid: first.pid,
        replicas: rest.map((s) => ({ port: transportPort(transport, s), pid: s.pid })),
        notes: [
          `HTTP front end: ${frontEndOf(first) ?? 'unknown'}`,
          `server flags: ${args.join(' ')}`,
          ...(processes > 1
            ? [
                `${processes} servers: each generator thread's share is split evenly over them (whole connections), their statistics and CPU time summed`,
              ]
            : []),
        ],
      };
      const result = await runTransport(transport, spec, options, prepared, levels, progress);
      return {
        ...result,
        scaling: { threads, processes, servedThreads: servers.map((s) => servedThreadsOf(s)) },
      };
    },
  );
}

/**
 * `--thread-sweep`: every transport asked for, at each thread count (a fresh server each), then
 * the N-process reference for each N >= 2 of the sweep.
 */
async function runThreadSweep(
  options: BenchOptions,
  prepared: PreparedRun,
  levels: readonly LoadLevel[],
  progress: Progress,
): Promise<TargetResult[]> {
  const out: TargetResult[] = [];
  for (const transport of INFERNODE_TRANSPORTS) {
    if (!options.targets.includes(transport.id)) continue;
    for (const threads of options.threadSweep) {
      out.push(await runScaled(transport, threads, 1, options, prepared, levels, progress));
    }
    if (!options.processReference) continue;
    for (const processes of options.threadSweep.filter((n) => n >= 2)) {
      out.push(await runScaled(transport, 1, processes, options, prepared, levels, progress));
    }
  }
  return out;
}

async function main(argv: readonly string[]): Promise<number> {
  const { options } = parseBenchFlags(argv, 'compare');
  if (options.protocol === 'ws') {
    throw new UsageError(
      '-i ws: the comparators speak HTTP only; compare infernode over WebSocket with --targets protocols (or infernode-ws)',
    );
  }
  if (options.protocol === 'grpc') {
    throw new UsageError(
      '-i grpc: the comparators speak HTTP only; compare infernode over gRPC with --targets protocols (or infernode-grpc, infernode-grpc-stream)',
    );
  }
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const progress = new Progress();
  const modelDir = path.join(options.modelRepository, options.model);
  const version = await modelVersionDir(modelDir, options.modelVersion);
  // The same config pipeline infernode runs, so all three targets see the same inputs and batching.
  const { config } = await loadModelConfig(modelDir);
  const modelFile = path.join(modelDir, version, config.default_model_filename || 'model.onnx');
  const prepared = prepareRun(signatureFromConfig(config), options.modelVersion, options);
  const levels = sweepLevels(options);
  const targets: TargetResult[] = [];

  if (options.targets.includes('raw-ort')) {
    const threads = rawSessionThreads(config, options.rawThreads, os.availableParallelism());
    targets.push(
      ...(await runRawOrtTargets(
        rawInit(modelFile, prepared.sets, threads),
        levels,
        options,
        progress,
      )),
    );
  }
  for (const naive of NAIVE_VARIANTS) {
    if (!options.targets.includes(naive.id)) continue;
    const script = benchEntry('targets', 'naive-fastify-server.js');
    const args = [script, '--model', modelFile, '--name', options.model, ...naive.args];
    const t = await withServer(
      () => startServer(naive.label, args),
      (s) =>
        runHttpTarget(
          {
            id: naive.id,
            kind: 'naive-fastify',
            label: naive.label,
            description: naive.description,
            host: s.host,
            port: s.port,
            pid: s.pid,
            notes: [],
          },
          prepared.bodies,
          prepared.outputs,
          levels,
          options,
          progress,
        ),
    );
    targets.push(t);
  }
  if (options.targets.includes('uws-ceiling')) {
    const script = benchEntry('targets', 'uws-ceiling-server.js');
    const t = await withServer(
      () =>
        startServer('uWS ceiling', [
          script,
          '--name',
          options.model,
          '--outputs',
          prepared.outputs.join(','),
        ]),
      (s) =>
        runHttpTarget(
          {
            id: 'uws-ceiling',
            kind: 'front-end-ceiling',
            label: 'uWS ceiling',
            description:
              'uWebSockets.js route that reads the body, JSON-parses it and returns a fixed small reply, no inference',
            host: s.host,
            port: s.port,
            pid: s.pid,
            notes: [],
          },
          prepared.bodies,
          prepared.outputs,
          levels,
          options,
          progress,
        ),
    );
    targets.push(t);
  }
  if (options.targets.includes('infernode-unbatched')) {
    const repo = await unbatchedRepository(options.modelRepository, options.model);
    try {
      const t = await withServer(
        () => startInfernode(repo.dir, options.serverArgs),
        (s) =>
          runHttpTarget(
            {
              id: 'infernode-unbatched',
              kind: 'infernode',
              label: 'infernode unbatched',
              description: `infernode with ${options.model}'s dynamic_batching removed (direct scheduler)`,
              host: s.host,
              port: s.port,
              pid: s.pid,
              notes: [`HTTP front end: ${frontEndOf(s) ?? 'unknown'}`],
            },
            prepared.bodies,
            prepared.outputs,
            levels,
            options,
            progress,
          ),
      );
      targets.push(t);
    } finally {
      await repo.remove();
    }
  }
  if (options.threadSweep.length > 0) {
    targets.push(...(await runThreadSweep(options, prepared, levels, progress)));
  } else {
    for (const transport of INFERNODE_TRANSPORTS) {
      if (options.targets.includes(transport.id)) {
        targets.push(await runInfernode(transport, options, prepared, levels, progress));
      }
    }
  }

  const result: BenchResult = {
    schema: RESULT_SCHEMA,
    kind: 'compare',
    command: commandLine('compare', argv),
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    options,
    model: { ...prepared.model, version },
    targets,
  };
  const files = await writeOutputs(result, options);
  // A transports-only run and an overhead run have their own tables; a mixed run prints both.
  if (isThreadSweepRun(result)) {
    progress.log(`\n${textTable(threadSweepTable(result))}`);
  } else if (!isProtocolRun(result) && !isOverheadRun(result)) {
    progress.log(`\n${textTable(comparisonTable(result))}`);
  }
  if (hasProtocolTargets(result)) progress.log(`\n${textTable(protocolTable(result))}`);
  if (isOverheadRun(result)) {
    progress.log(`\n${textTable(overheadTable(result))}`);
    progress.log(`\n${textTable(cpuPerKiloTable(result))}`);
  }
  const stages = stageTable(result);
  if (stages !== null) progress.log(`\n${textTable(stages)}`);
  for (const verdict of [...targetVerdicts(result), ...overheadVerdicts(result)]) {
    progress.log(verdict);
  }
  const limits = limitsTable(result);
  if (limits !== null) progress.log(`\n${textTable(limits)}`);
  for (const c of caveats(result)) progress.log(`- ${c}`);
  progress.log(
    `\nwrote ${files.dir}/ (result.json, report.html, plot.png, ${Object.keys(files.csv).length} CSV files)`,
  );
  if (options.publish) {
    const published = await publish(result);
    progress.log(
      `published ${published.files.map((f) => path.relative(process.cwd(), f)).join(', ')}`,
    );
    if (!published.readmeUpdated) {
      progress.log(
        'README.md has no <!-- bench-results:start/end --> markers: its results block was not updated',
      );
    }
  }
  return targets.every((t) => t.levels.every((l) => l.summary.errors === 0)) ? 0 : 1;
}

export const command: SubcommandModule = {
  flags: flagsFor('compare'),
  refusals: refusalsFor('compare'),
  main,
};
