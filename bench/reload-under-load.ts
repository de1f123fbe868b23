// The reload-under-load bench (issue 9, item 4, measured): closed-loop clients infer on `mlp` in a
// spawned infernode (explicit mode) for a steady window, then while `mlp` is reloaded N times back
// to back (the config in a temporary copy of the repository alternates instance_group count 1 and
// 2; one reload also brings version 2 in), then for a steady window again. Reports requests,
// failures and latency per phase and each reload's duration; publishes
// bench/results/reload-under-load.{json,csv} and its section of bench/RESULTS.md.
//
//   npm run bench:reload -- [--clients 8] [--reloads 20] [--steady-secs 15] [--no-publish]

import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, onInterrupt } from './entry.js';
import { ClosedLoop } from './load/closed-loop.js';
import { PayloadCycle } from './load/payload-cycle.js';
import { WindowRecorder } from './load/window-recorder.js';
import { decodeHistogram, summarize } from './measure/latency-histogram.js';
import { machineInfo } from './measure/machine-info.js';
import { machineBusyMs, processCpuMs } from './measure/process-cpu.js';
import { MLP, mlpInferRequest } from './model-management/mlp-request.js';
import {
  RELOAD_SCHEMA,
  type PhaseId,
  type PhaseResult,
  type ReloadRecord,
  type ReloadResult,
} from './model-management/reload-result.js';
import { RepositoryRpc } from './model-management/repository-rpc.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY, REPO_ROOT } from './paths.js';
import { publishReloadUnderLoad } from './report/publish.js';
import { phasesCsv, reloadsCsv } from './report/reload-report.js';
import { grpcPortOf, startInfernode, type ServerProcess } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

interface ReloadOptions {
  readonly clients: number;
  readonly reloads: number;
  /** The reload (1-based) that also adds version 2. */
  readonly newVersionAt: number;
  readonly steadyMs: number;
  readonly warmupMs: number;
  readonly publish: boolean;
}

/** Version 2: the same network with other weights (a test fixture, made by `npm run models`). */
const NEW_VERSION_MODEL = path.join(
  REPO_ROOT,
  'test',
  'fixtures',
  'repository',
  'mlp_reseeded',
  '1',
  'model.onnx',
);

function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a number > 0`);
  return n;
}

/** Every flag of `infernode-bench reload`: parsing and its --help read this table. */
export const FLAGS = {
  clients: { kind: 'string', default: '8', help: 'Closed-loop clients inferring on mlp' },
  reloads: { kind: 'string', default: '20', help: 'Reloads back to back' },
  'new-version-at': {
    kind: 'string',
    default: '11',
    help: 'The reload (1-based) that also brings version 2 in',
  },
  'steady-secs': {
    kind: 'string',
    default: '15',
    help: 'Steady window before and after the reloads, s',
  },
  'warmup-secs': { kind: 'string', default: '3', help: 'Warm-up before the first window, s' },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

function parseOptions(argv: readonly string[]): ReloadOptions {
  const values = parseFlags(argv, FLAGS).values;
  const reloads = Math.round(positive('reloads', values.reloads));
  const newVersionAt = Math.round(positive('new-version-at', values['new-version-at']));
  if (newVersionAt > reloads) throw new UsageError('--new-version-at must be <= --reloads');
  return {
    clients: Math.round(positive('clients', values.clients)),
    reloads,
    newVersionAt,
    steadyMs: positive('steady-secs', values['steady-secs']) * 1000,
    warmupMs: positive('warmup-secs', values['warmup-secs']) * 1000,
    publish: !values['no-publish'],
  };
}

/** The bundled config with another instance count (a change that makes a load a real reload). */
function withInstances(config: string, count: number): string {
  const pattern = /(instance_group\s*\[\s*\{\s*count:\s*)\d+/;
  if (!pattern.test(config)) throw new Error('mlp config.pbtxt has no instance_group count');
  return config.replace(pattern, `$1${count}`);
}

/** Server and machine CPU time, to turn into cores per phase. */
function cpuNow(server: ServerProcess): { server: number | null; machine: number | null } {
  return { server: processCpuMs(server.pid), machine: machineBusyMs() };
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  await readFile(NEW_VERSION_MODEL).catch(() => {
    throw new UsageError(`${NEW_VERSION_MODEL} is missing: run npm run models`);
  });
  const startedAt = new Date().toISOString();
  const machine = machineInfo();

  // A private copy of the repository holding mlp only: the bench rewrites its config.
  const repo = await mkdtemp(path.join(os.tmpdir(), 'infernode-reload-bench-'));
  const dir = path.join(repo, MLP);
  await cp(path.join(DEFAULT_MODEL_REPOSITORY, MLP), dir, { recursive: true });
  const config = await readFile(path.join(dir, 'config.pbtxt'), 'utf8');
  const serverArgs = ['--model-control-mode=explicit', `--load-model=${MLP}`];
  const server = await startInfernode(repo, serverArgs);
  const forget = onInterrupt(async () => {
    await server.stop();
    await rm(repo, { recursive: true, force: true });
  });
  const grpcPort = grpcPortOf(server);
  if (grpcPort === null) throw new Error('the server reported no gRPC port');
  const rpc = new RepositoryRpc(`${server.host}:${grpcPort}`);

  const recorder = new WindowRecorder();
  const requests = Array.from({ length: options.clients }, (_, i) =>
    mlpInferRequest(server.host, server.port, i + 1),
  );
  const loop = new ClosedLoop(
    { host: server.host, port: server.port },
    new PayloadCycle(requests),
    recorder,
  );
  const phases: PhaseResult[] = [];
  const reloads: ReloadRecord[] = [];
  let cpu = cpuNow(server);
  /** Ends the phase now: what the recorder holds since the last boundary. */
  const endPhase = (id: PhaseId): void => {
    const w = recorder.take(loop.inFlight(), 0);
    const now = cpuNow(server);
    const ms = w.endMs - w.startMs;
    const cores = (a: number | null, b: number | null): number | null =>
      a === null || b === null ? null : (b - a) / ms;
    phases.push({
      id,
      durationMs: ms,
      requests: w.completed,
      failures: w.errors,
      errorSample: w.errorSample,
      reqPerSec: (w.completed * 1000) / ms,
      latency: summarize(decodeHistogram(w.histogram)),
      histogram: w.histogram,
      serverCores: cores(cpu.server, now.server),
      machineCores: cores(cpu.machine, now.machine),
    });
    cpu = now;
    const p = phases[phases.length - 1] as PhaseResult;
    process.stderr.write(
      `${id}: ${p.requests} requests, ${p.failures} failures, p50 ${(p.latency.p50Us / 1000).toFixed(2)} ms, ` +
        `p99 ${(p.latency.p99Us / 1000).toFixed(2)} ms over ${(ms / 1000).toFixed(1)} s\n`,
    );
  };

  try {
    await loop.start(options.clients);
    await sleep(options.warmupMs);
    recorder.take(loop.inFlight(), 0); // warm-up: connections, JIT, the batcher's first batches
    cpu = cpuNow(server);
    await sleep(options.steadyMs);
    endPhase('steady');
    for (let n = 1; n <= options.reloads; n += 1) {
      const instances = n % 2 === 1 ? 1 : 2; // the bundled config has 2: every reload changes it
      const newVersion = n === options.newVersionAt;
      if (newVersion) {
        await mkdir(path.join(dir, '2'));
        await copyFile(NEW_VERSION_MODEL, path.join(dir, '2', 'model.onnx'));
      }
      await writeFile(path.join(dir, 'config.pbtxt'), withInstances(config, instances));
      const t0 = performance.now();
      await rpc.load(MLP);
      reloads.push({ reload: n, instances, newVersion, durationMs: performance.now() - t0 });
    }
    endPhase('reloads');
    await sleep(options.steadyMs);
    endPhase('steady-after');
    await loop.stop();
    const finalIndex = await rpc.index();
    const switches = server.lines.filter((l) =>
      l.includes('model switched to its new versions'),
    ).length;

    const result: ReloadResult = {
      schema: RELOAD_SCHEMA,
      command: commandLine('reload', argv),
      startedAt,
      machine,
      model: MLP,
      clients: options.clients,
      serverArgs,
      phases,
      reloads,
      switches,
      finalIndex,
    };
    const out = path.join(
      BENCH_OUT,
      `${startedAt.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z')}-reload-${MLP}`,
    );
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(path.join(out, 'phases.csv'), phasesCsv(result));
    await writeFile(path.join(out, 'reloads.csv'), reloadsCsv(result));
    process.stdout.write(`wrote ${path.relative(process.cwd(), out)}/\n`);
    process.stdout.write(
      `${reloads.length} reloads (${switches} switches logged), final index: ` +
        `${finalIndex.map((r) => `${r.name}/${r.version} ${r.state}`).join(', ')}\n`,
    );
    if (options.publish) {
      for (const f of await publishReloadUnderLoad(result)) {
        process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
      }
    }
    return phases.some((p) => p.failures > 0) ? 1 : 0;
  } finally {
    loop.close();
    rpc.close();
    await server.stop();
    await rm(repo, { recursive: true, force: true });
    forget();
  }
}

export const command: SubcommandModule = { flags: FLAGS, main };
