// `infernode-bench run` (`npm run bench`): perf_analyzer's measurement against one KServe v2 server — the one at --url, or
// an infernode this command starts (--serve) — writing JSON, CSV, HTML and a PNG plot.

import { setUpRegions, sharedMemoryRequestBody, type BenchRegions } from './model/shm-regions.js';
import { commandLine, onInterrupt } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { GrpcServiceClient } from './model/grpc-service.js';
import {
  fetchGrpcSignature,
  fetchSignature,
  type ModelSignature,
} from './model/model-signature.js';
import { flagsFor, refusalsFor } from './options/flag-table.js';
import { parseBenchFlags } from './options/parse-flags.js';
import type { BenchOptions } from './options/bench-options.js';
import { parseServerUrl } from './options/server-url.js';
import { UsageError } from './options/usage-error.js';
import { prepareRun } from './prepare-run.js';
import { cacheStatsLines } from './report/cache-lines.js';
import { levelTable } from './report/comparison.js';
import { Progress } from './report/progress.js';
import { RESULT_SCHEMA, type BenchResult } from './report/result-types.js';
import { textTable } from './report/tables.js';
import { writeOutputs } from './report/write-outputs.js';
import { sweepLevels } from './sweep/run-sweep.js';
import { runHttpTarget, type HttpTargetSpec } from './targets/http-target.js';
import { grpcAddress, runGrpcTarget } from './targets/grpc-target.js';
import { runWsTarget } from './targets/ws-target.js';
import { frontEndOf, startInfernode, type ServerProcess } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';

async function main(argv: readonly string[]): Promise<number> {
  const { options } = parseBenchFlags(argv, 'bench');
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const progress = new Progress();
  let server: ServerProcess | null = null;
  let regions: BenchRegions | undefined;
  const forget = onInterrupt(async () => {
    await regions?.release();
    await server?.stop();
  });
  try {
    let host: string;
    let port: number;
    let pid: number | null;
    const notes: string[] = [];
    if (options.serve) {
      progress.update('starting infernode…');
      // --shared-memory system needs the extension on (Triton 26.04+ and infernode default off).
      const shmArgs = options.sharedMemory === 'system' ? ['--allow-client-shm=true'] : [];
      server = await startInfernode(options.modelRepository, [...options.serverArgs, ...shmArgs]);
      ({ host, port } = server);
      if (options.protocol === 'grpc') {
        if (server.grpcPort === null) throw new Error('infernode reported no gRPC port');
        port = server.grpcPort;
      }
      pid = server.pid;
      notes.push(`started by the harness: --model-repository ${options.modelRepository}`);
      notes.push(`HTTP front end: ${frontEndOf(server) ?? 'unknown'}`);
      if (options.serverArgs.length > 0)
        notes.push(`server flags: ${options.serverArgs.join(' ')}`);
    } else {
      ({ host, port } = parseServerUrl(options.url, options.protocol === 'grpc' ? 8001 : 8000));
      pid = options.serverPid > 0 ? options.serverPid : null;
      if (pid === null)
        notes.push('server CPU unknown (give --server-pid for a server on this machine)');
    }
    const base =
      options.protocol === 'grpc' ? `grpc://${grpcAddress(host, port)}` : `http://${host}:${port}`;
    const sig = await signature(options.protocol === 'grpc', host, port, options);
    checkSequences(sig, options);
    const prepared = prepareRun(sig, options.modelVersion, options);
    const spec: HttpTargetSpec = {
      id: server !== null ? 'infernode' : 'server',
      kind: server !== null ? 'infernode' : 'server',
      label: server !== null ? 'infernode' : base,
      description:
        server !== null ? 'infernode started for this run' : `the KServe v2 server at ${base}`,
      host,
      port,
      pid,
      notes,
    };
    const levels = sweepLevels(options);
    const { sets, outputs } = prepared;
    let { bodies } = prepared;
    if (options.sharedMemory === 'system') {
      if (options.protocol === 'ws')
        throw new UsageError('--shared-memory system: -i http or grpc');
      regions = await setUpRegions(
        options.protocol === 'grpc' ? grpcAddress(host, port) : `http://${host}:${port}`,
        options.protocol === 'grpc',
        sets,
        outputs,
        options.outputSharedMemorySize,
      );
      const r = regions;
      bodies = sets.map((set, i) => sharedMemoryRequestBody(set, r.inputs[i] ?? {}, r.outputs));
      notes.push(
        `--shared-memory system: inputs in ${sets.length} registered region(s), outputs in ` +
          `${options.outputSharedMemorySize}-byte regions`,
      );
    }
    let target;
    switch (options.protocol) {
      case 'ws':
        target = await runWsTarget(spec, sets, outputs, levels, options, progress);
        break;
      case 'grpc':
        target = await runGrpcTarget(
          spec,
          sets,
          outputs,
          levels,
          options,
          options.streaming,
          progress,
          regions,
        );
        break;
      case 'http':
        target = await runHttpTarget(spec, bodies, outputs, levels, options, progress);
        break;
    }
    const result: BenchResult = {
      schema: RESULT_SCHEMA,
      kind: 'bench',
      command: commandLine('run', argv),
      startedAt,
      finishedAt: new Date().toISOString(),
      machine,
      options,
      model: prepared.model,
      targets: [target],
    };
    const files = await writeOutputs(result, options);
    progress.log(`\n${textTable(levelTable(target))}\n`);
    const cache = cacheStatsLines(target);
    if (cache.length > 0) {
      progress.log(`Server response cache (statistics deltas):\n${cache.join('\n')}\n`);
    }
    progress.log(`wrote ${files.json}\n      ${files.html}\n      ${files.png}`);
    for (const csv of Object.values(files.csv)) progress.log(`      ${csv}`);
    return target.levels.every((l) => l.summary.errors === 0) ? 0 : 1;
  } finally {
    progress.clear();
    forget();
    await regions?.release();
    await server?.stop();
  }
}

/**
 * A sequence model is measured as sequences over HTTP in concurrency mode (each connection walks
 * its own sequences); the other transports and request-rate mode do not send sequences yet, so
 * they are refused rather than sending requests the sequence batcher would reject.
 */
function checkSequences(sig: ModelSignature, options: BenchOptions): void {
  if (sig.sequenceBatching && options.cacheHitRatio !== null) {
    throw new UsageError(
      `${sig.name} has sequence_batching, which the response cache refuses: no --cache-hit-ratio`,
    );
  }
  if (!sig.sequenceBatching) {
    if (options.sequence.explicit) {
      throw new UsageError(
        `the sequence flags need a model with sequence_batching; ${sig.name}'s config has none`,
      );
    }
    return;
  }
  if (options.protocol !== 'http') {
    throw new UsageError(
      `${sig.name} has sequence_batching: sequences are sent over -i http only so far, got -i ${options.protocol}`,
    );
  }
  if (options.sweep.kind !== 'concurrency') {
    throw new UsageError(
      `${sig.name} has sequence_batching: sequences are sent with --concurrency-range only so far ` +
        '(each connection one sequence at a time), got --request-rate-range',
    );
  }
}

/** The model's inputs from the server under test, over the protocol being measured. */
async function signature(
  grpc: boolean,
  host: string,
  port: number,
  options: { readonly model: string; readonly modelVersion: string },
): Promise<ModelSignature> {
  if (!grpc) return fetchSignature(`http://${host}:${port}`, options.model, options.modelVersion);
  const client = new GrpcServiceClient(grpcAddress(host, port));
  try {
    return await fetchGrpcSignature(client, options.model, options.modelVersion);
  } finally {
    client.close();
  }
}

export const command: SubcommandModule = {
  flags: flagsFor('bench'),
  refusals: refusalsFor('bench'),
  main,
};
