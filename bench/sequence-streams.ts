// The sequence batcher's real-time bench: how many concurrent 16 kHz audio streams (one
// 512-sample chunk per request every 32 ms, each stream a run of real sequences) infernode
// sustains with p99 step latency under 32 ms, per served config (the shipped `oldest` silero_vad,
// the `direct` fixture, and variants), against the naive loop (one in-process session of the
// package's original model, batch 1). Each count is one probe in a fresh load process; the count
// is searched by doubling, then bisecting. Writes bench/out/<time>-streams/ and publishes
// bench/results/sequence-streams.{json,csv} and its section of bench/RESULTS.md.
//
//   npm run bench:streams -- [--configs oldest,direct|all] [--measure-secs 8] [--no-publish]

import { fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandLine, onInterrupt } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { machineBusyMs, processCpuMs } from './measure/process-cpu.js';
import {
  breakdown,
  fetchServerCounters,
  subtractCounters,
  type ServerBreakdown,
} from './measure/server-stats.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, benchEntry } from './paths.js';
import { publishSequenceStreams } from './report/publish.js';
import { streamsCsv } from './report/sequence-streams-report.js';
import { DEFAULT_CONFIGS, parseConfigs, servedConfig } from './streams/served-configs.js';
import type {
  ComputeReport,
  LoadOrder,
  LoadReport,
  ProbeReport,
  ProbeTarget,
} from './streams/stream-messages.js';
import { searchMaxStreams } from './streams/stream-search.js';
import {
  STREAMS_SCHEMA,
  type StreamProbe,
  type StreamSearch,
  type StreamsResult,
} from './streams/streams-result.js';
import { startInfernode } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

interface StreamsOptions {
  readonly configs: readonly string[];
  readonly start: number;
  readonly max: number;
  readonly resolution: number;
  readonly warmupMs: number;
  readonly measureMs: number;
  readonly connections: number;
  readonly naive: boolean;
  readonly publish: boolean;
}

const PERIOD_MS = 32;
const P99_LIMIT_MS = 32;
/** A sustained count must also keep up: at least this share of real time's steps per second. */
const KEEP_UP = 0.95;
/**
 * The machine is shared: a failed probe during which other processes used more than this many
 * cores is measured again (up to RETRIES times, after a pause), and every probe records it.
 */
const NOISY_CORES = 0.25;
const RETRIES = 2;
const RETRY_PAUSE_MS = 5000;
/** Before a probe, wait (at most this long) for a second in which other processes were quiet. */
const QUIET_WAIT_MS = 30_000;

/**
 * Waits until the machine was nearly idle for one second (the server under test idles between
 * probes, so what is busy then is other work), or until QUIET_WAIT_MS has passed.
 */
async function quietMachine(): Promise<void> {
  const deadline = performance.now() + QUIET_WAIT_MS;
  let said = false;
  while (performance.now() < deadline) {
    const b0 = machineBusyMs();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 1000));
    const b1 = machineBusyMs();
    if (b0 === null || b1 === null) return;
    const others = (b1 - b0) / (performance.now() - t0);
    if (others <= NOISY_CORES) return;
    if (!said)
      process.stderr.write(`  (waiting for other processes: ${others.toFixed(2)} cores busy)\n`);
    said = true;
  }
}

function number(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`--${name} must be a number >= ${min}`);
  return n;
}

/** Every flag of `infernode-bench streams`: parsing and its --help read this table. */
export const FLAGS = {
  configs: {
    kind: 'string',
    default: DEFAULT_CONFIGS.join(','),
    help: 'Comma list of served configs, or all',
  },
  start: { kind: 'string', default: '8', help: 'First stream count probed' },
  max: { kind: 'string', default: '4096', help: 'Largest stream count probed' },
  resolution: {
    kind: 'string',
    default: '0.1',
    help: 'Stop bisecting when the bracket is this fraction of the count',
  },
  'warmup-secs': { kind: 'string', default: '2', help: 'Warm-up of each probe, s' },
  'measure-secs': { kind: 'string', default: '8', help: 'Measured time of each probe, s' },
  connections: {
    kind: 'string',
    default: '8',
    help: 'Connections the load process spreads streams over',
  },
  'no-naive': { kind: 'flag', help: 'Skip the naive loop (one in-process session, batch 1)' },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

function parseOptions(argv: readonly string[]): StreamsOptions {
  const values = parseFlags(argv, FLAGS).values;
  return {
    configs: parseConfigs(values.configs),
    start: Math.floor(number('start', values.start, 1)),
    max: Math.floor(number('max', values.max, 1)),
    resolution: number('resolution', values.resolution, 0),
    warmupMs: number('warmup-secs', values['warmup-secs'], 0) * 1000,
    measureMs: number('measure-secs', values['measure-secs'], 1) * 1000,
    connections: Math.floor(number('connections', values.connections, 1)),
    naive: !values['no-naive'],
    publish: !values['no-publish'],
  };
}

/** Runs one order in a fresh load process and returns its report. */
function inLoadProcess(order: LoadOrder): Promise<LoadReport> {
  return new Promise((resolve, reject) => {
    const child = fork(benchEntry('streams', 'stream-load-process.js'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const forget = onInterrupt(async () => {
      child.kill('SIGKILL');
    });
    let report: LoadReport | null = null;
    child.once('message', (m: LoadReport) => (report = m));
    child.once('error', reject);
    child.once('exit', (code) => {
      forget();
      if (report === null) reject(new Error(`the load process exited with ${code} and no report`));
      else resolve(report);
    });
    child.send(order);
  });
}

const cpuCores = (pid: number, before: number | null, t0: number): number | null => {
  const after = processCpuMs(pid);
  return before === null || after === null ? null : (after - before) / (performance.now() - t0);
};

async function probeOnce(
  options: StreamsOptions,
  target: ProbeTarget,
  streams: number,
  idBase: number,
  server: { pid: number; base: string; model: string } | null,
): Promise<StreamProbe> {
  await quietMachine();
  const before = server === null ? null : await fetchServerCounters(server.base, server.model, '');
  const cpu0 = server === null ? null : processCpuMs(server.pid);
  const busy0 = machineBusyMs();
  const t0 = performance.now();
  const report = await inLoadProcess({
    type: 'probe',
    target,
    streams,
    connections: options.connections,
    periodMs: PERIOD_MS,
    warmupMs: options.warmupMs,
    measureMs: options.measureMs,
    idBase,
  });
  if (report.type !== 'probe') {
    throw new Error(
      `probe of ${streams} streams: ${report.type === 'error' ? report.message : ''}`,
    );
  }
  const p: ProbeReport = report;
  const serverCores = server === null ? null : cpuCores(server.pid, cpu0, t0);
  const busy1 = machineBusyMs();
  const wallMs = performance.now() - t0;
  const otherCores =
    busy0 === null || busy1 === null
      ? null
      : Math.max(0, (busy1 - busy0) / wallMs - (serverCores ?? 0) - p.loadCpuCores);
  let stats: ServerBreakdown | null = null;
  if (server !== null && before !== null) {
    const after = await fetchServerCounters(server.base, server.model, '');
    if (after !== null) stats = breakdown(subtractCounters(after, before));
  }
  const passed =
    p.errors === 0 &&
    p.latency.count > 0 &&
    p.latency.p99Ms < P99_LIMIT_MS &&
    p.stepsPerSecond >= KEEP_UP * streams * (1000 / PERIOD_MS);
  const line =
    `${streams} streams: p50 ${p.latency.p50Ms.toFixed(2)} ms, p99 ${p.latency.p99Ms.toFixed(2)} ms, ` +
    `${Math.round(p.stepsPerSecond)} steps/s, errors ${p.errors}` +
    (serverCores === null ? '' : `, server ${serverCores.toFixed(2)} cores`) +
    (stats === null ? '' : `, avg batch ${stats.avgBatchSize.toFixed(1)}`) +
    `, load ${p.loadCpuCores.toFixed(2)} cores` +
    (otherCores === null ? '' : `, others ${otherCores.toFixed(2)} cores`) +
    ` -> ${passed ? 'pass' : 'FAIL'}` +
    (p.firstError === null ? '' : ` (${p.firstError})`);
  process.stderr.write(`  ${line}\n`);
  return {
    streams,
    passed,
    latency: p.latency,
    stepsPerSecond: p.stepsPerSecond,
    errors: p.errors,
    firstError: p.firstError,
    serverCores,
    loadCores: p.loadCpuCores,
    otherCores,
    server: stats,
    attempt: 1,
  };
}

/** A probe, measured again while it fails with other processes busy on the machine. */
async function probe(
  options: StreamsOptions,
  target: ProbeTarget,
  streams: number,
  server: { pid: number; base: string; model: string } | null,
): Promise<StreamProbe> {
  for (let attempt = 1; ; attempt += 1) {
    const p = await probeOnce(options, target, streams, idBlock(), server);
    const noisy = p.otherCores !== null && p.otherCores > NOISY_CORES;
    if (p.passed || !noisy || attempt > RETRIES) return { ...p, attempt };
    process.stderr.write(`  (other processes used ${p.otherCores?.toFixed(2)} cores: again)\n`);
    await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
  }
}

let nextIdBase = 1;
/** Sequence ids of one probe: a fresh block per probe, so no id is reused on one server. */
function idBlock(): number {
  const base = nextIdBase;
  nextIdBase += 1_000_000;
  return base;
}

async function search(
  options: StreamsOptions,
  target: ProbeTarget,
  server: { pid: number; base: string; model: string } | null,
): Promise<{ sustained: number; probes: StreamProbe[] }> {
  const outcome = await searchMaxStreams(
    { start: options.start, max: options.max, resolution: options.resolution },
    (n) => probe(options, target, n, server),
    (p) => p.passed,
  );
  return { sustained: outcome.sustained, probes: outcome.points.map((pt) => pt.probe) };
}

async function searchServed(options: StreamsOptions, id: string): Promise<StreamSearch> {
  const served = await servedConfig(id);
  const forgetRepository = onInterrupt(() => served.remove());
  const server = await startInfernode(served.repository, []);
  const forget = onInterrupt(() => server.stop());
  try {
    process.stderr.write(`${served.label}:\n`);
    const target: ProbeTarget = {
      kind: 'ws',
      host: server.host,
      port: server.port,
      model: served.model,
    };
    const found = await search(options, target, {
      pid: server.pid,
      base: server.base,
      model: served.model,
    });
    return { id, label: served.label, config: served.config, ...found };
  } finally {
    await server.stop();
    forget();
    await served.remove();
    forgetRepository();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const oldest = await servedConfig('oldest');
  await quietMachine();
  const computeReport = await inLoadProcess({
    type: 'compute',
    wrappedModel: path.join(oldest.repository, oldest.model, '1', 'model.onnx'),
    batchSizes: [1, 8, 16, 32, 64],
    runs: 200,
  }).finally(() => oldest.remove());
  if (computeReport.type !== 'compute') {
    throw new Error(
      `model compute: ${computeReport.type === 'error' ? computeReport.message : ''}`,
    );
  }
  const compute = (computeReport as ComputeReport).rows;
  for (const r of compute) {
    process.stderr.write(
      `compute ${r.model} batch ${r.batch}: ${r.msPerRun.toFixed(3)} ms/run, ${r.usPerRow.toFixed(1)} µs/row\n`,
    );
  }
  const served: StreamSearch[] = [];
  for (const id of options.configs) served.push(await searchServed(options, id));
  let naive: StreamSearch = {
    id: 'naive',
    label: 'naive loop',
    config: null,
    sustained: 0,
    probes: [],
  };
  if (options.naive) {
    process.stderr.write('naive loop (original model, one session, batch 1, in-process):\n');
    naive = { ...naive, ...(await search(options, { kind: 'naive' }, null)) };
  }
  const result: StreamsResult = {
    schema: STREAMS_SCHEMA,
    command: commandLine('streams', argv),
    startedAt,
    machine,
    periodMs: PERIOD_MS,
    warmupMs: options.warmupMs,
    measureMs: options.measureMs,
    connections: options.connections,
    p99LimitMs: P99_LIMIT_MS,
    naive,
    served,
    compute,
  };
  const dir = path.join(
    BENCH_OUT,
    `${startedAt.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z')}-streams-silero_vad`,
  );
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(path.join(dir, 'probes.csv'), streamsCsv(result));
  process.stdout.write(`wrote ${path.relative(process.cwd(), dir)}/\n`);
  for (const s of served) {
    const ratio =
      naive.sustained > 0 ? ` (${(s.sustained / naive.sustained).toFixed(1)}× naive)` : '';
    process.stdout.write(`${s.label}: ${s.sustained} streams${ratio}\n`);
  }
  process.stdout.write(`naive loop: ${naive.sustained} streams\n`);
  if (options.publish) {
    for (const f of await publishSequenceStreams(result)) {
      process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
    }
  }
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
