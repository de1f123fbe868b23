// The GPU soak: one infernode with `--instances` WebGPU instances of the bundled mlp (KIND_GPU,
// gpu_execution_accelerator webgpu) under `--concurrency` HTTP clients for `--duration-secs`, while
// a second WebGPU model is loaded, used and unloaded every `--cycle-secs`, and /metrics is scraped
// for Triton's GPU families. Every answer is checked against the CPU's for the same rows. Passes
// when no request failed, every cycle worked, and the server is still up at the end: the check
// that per-device serialization keeps several GPU instances from crashing the process.
// Writes <out>/gpu-soak.json; exits 1 on any failure.
//
//   node dist/bench/cli.js gpu-soak [--instances 4] [--concurrency 16] [--duration-secs 120]
//     [--cycle-secs 20] [--batch 8] [--out bench/out] [--stand-in]
//
// --stand-in runs the test-only GPU stand-in (CPU sessions that take the device lock), so the
// bench itself can be exercised on a machine without a GPU.

import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { TEST_GPU_RECORD_ENV, DEPLOYED_MALLOC_ENV } from 'infernode/tooling';
import { commandLine, onInterrupt } from './entry.js';
import type { GpuMetricsSample, GpuSoakResult } from './gpu/gpu-result.js';
import { newHistogram, recordUs, summarize } from './measure/latency-histogram.js';
import { machineInfo } from './measure/machine-info.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { metricsPortOf, startInfernode, type ServerProcess } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

interface SoakOptions {
  readonly instances: number;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly cycleMs: number;
  readonly batch: number;
  readonly out: string;
  readonly standIn: boolean;
}

function positive(name: string, text: string, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`--${name}: expected an integer 1..${max}, got "${text}"`);
  return n;
}

/** Every flag of `infernode-bench gpu-soak`: parsing and its --help read this table. */
export const FLAGS = {
  instances: { kind: 'string', default: '4', help: 'WebGPU instances of mlp' },
  concurrency: { kind: 'string', default: '16', help: 'HTTP clients' },
  'duration-secs': { kind: 'string', default: '120', help: 'Length of the run, s' },
  'cycle-secs': {
    kind: 'string',
    default: '20',
    help: 'A second model is loaded, used and unloaded this often, s',
  },
  batch: { kind: 'string', default: '8', help: 'Rows per request' },
  out: { kind: 'string', default: BENCH_OUT, help: 'Folder for gpu-soak.json' },
  'stand-in': {
    kind: 'flag',
    help: 'Run on the CPU provider as a stand-in for WebGPU (no GPU here)',
  },
  help: HELP_FLAG,
} as const satisfies FlagTable;

function parseOptions(argv: readonly string[]): SoakOptions {
  const v = parseFlags(argv, FLAGS).values;
  return {
    instances: positive('instances', v.instances, 64),
    concurrency: positive('concurrency', v.concurrency, 256),
    durationMs: positive('duration-secs', v['duration-secs'], 86_400) * 1000,
    cycleMs: positive('cycle-secs', v['cycle-secs'], 86_400) * 1000,
    batch: positive('batch', v.batch, 64),
    out: path.resolve(v.out),
    standIn: v['stand-in'],
  };
}

const gpuConfig = (name: string, count: number): string =>
  [
    `name: "${name}"`,
    'platform: "onnxruntime_onnx"',
    'max_batch_size: 64',
    'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 784 ] } ]',
    'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    `instance_group [ { kind: KIND_GPU count: ${count} gpus: [ 0 ] } ]`,
    'optimization { execution_accelerators { gpu_execution_accelerator [ { name: "webgpu" } ] } }',
    '',
  ].join('\n');

const cpuConfig = [
  'name: "mlp_cpu"',
  'platform: "onnxruntime_onnx"',
  'max_batch_size: 64',
  'instance_group [ { kind: KIND_CPU count: 1 } ]',
  '',
].join('\n');

async function writeRepository(dir: string, instances: number): Promise<void> {
  const models: Array<[string, string]> = [
    ['mlp_gpu', gpuConfig('mlp_gpu', instances)],
    ['mlp_cycle', gpuConfig('mlp_cycle', 2)],
    ['mlp_cpu', cpuConfig],
  ];
  for (const [name, config] of models) {
    await mkdir(path.join(dir, name, '1'), { recursive: true });
    await writeFile(path.join(dir, name, 'config.pbtxt'), config);
    await copyFile(
      path.join(DEFAULT_MODEL_REPOSITORY, 'mlp', '1', 'model.onnx'),
      path.join(dir, name, '1', 'model.onnx'),
    );
  }
}

/** Rows of a fixed pseudo-random batch, seeded so the CPU reference sees the same rows. */
function batchRows(seed: number, batch: number): number[] {
  const data: number[] = [];
  let s = seed * 2654435761;
  for (let i = 0; i < batch * 784; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data.push((s >>> 8) / 2 ** 24);
  }
  return data;
}

async function infer(
  base: string,
  model: string,
  rows: number[],
  batch: number,
): Promise<number[]> {
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [batch, 784], data: rows }],
    }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${model}: HTTP ${res.status} ${text.slice(0, 300)}`);
  const out = (JSON.parse(text) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data ?? [];
  if (out.length !== batch * 10) throw new Error(`${model}: ${out.length} outputs`);
  return out;
}

async function repository(base: string, model: string, action: 'load' | 'unload'): Promise<void> {
  const res = await fetch(`${base}/v2/repository/models/${model}/${action}`, { method: 'POST' });
  if (res.status !== 200)
    throw new Error(`${action} ${model}: HTTP ${res.status} ${await res.text()}`);
}

const GPU_FAMILIES = [
  'nv_gpu_utilization',
  'nv_gpu_memory_used_bytes',
  'nv_gpu_memory_total_bytes',
  'nv_gpu_power_usage',
  'nv_gpu_power_limit',
  'nv_energy_consumption',
] as const;

/** One scrape's GPU values (first GPU), by family; absent families are left out. */
async function scrapeGpu(metrics: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${metrics}/metrics`)).text();
  const values: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const family = GPU_FAMILIES.find((f) => line.startsWith(`${f}{`));
    if (family !== undefined && !(family in values)) {
      values[family] = Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return values;
}

const maxDiff = (a: readonly number[], b: readonly number[]): number =>
  a.reduce((m, v, i) => Math.max(m, Math.abs(v - (b[i] ?? NaN))), 0);

async function main(argv: readonly string[]): Promise<number> {
  const o = parseOptions(argv);
  const repo = await mkdtemp(path.join(os.tmpdir(), 'infernode-gpu-soak-'));
  await writeRepository(repo, o.instances);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...DEPLOYED_MALLOC_ENV,
    ...(o.standIn && { [TEST_GPU_RECORD_ENV]: path.join(repo, 'stand-in-record.txt') }),
  };
  const started = performance.now();
  let server: ServerProcess | undefined;
  const done = onInterrupt(async () => {
    await server?.stop();
    await rm(repo, { recursive: true, force: true });
  });
  try {
    server = await startInfernode(
      repo,
      [
        '--model-control-mode=explicit',
        '--load-model=mlp_gpu',
        '--load-model=mlp_cpu',
        '--metrics-interval-ms=1000',
        '--exit-on-error=false',
      ],
      env,
    );
  } catch (e) {
    await rm(repo, { recursive: true, force: true });
    throw e;
  }
  const s = server;
  const loadMs = performance.now() - started;
  const metricsBase = `http://127.0.0.1:${metricsPortOf(s) ?? 0}`;

  // References from the CPU model, for a few seeds the clients cycle through.
  const SEEDS = 8;
  const rows = Array.from({ length: SEEDS }, (_, k) => batchRows(k + 1, o.batch));
  const want = await Promise.all(rows.map((r) => infer(s.base, 'mlp_cpu', r, o.batch)));

  const latency = newHistogram();
  const errors: string[] = [];
  let ok = 0;
  let failed = 0;
  let worstDiff = 0;
  const deadline = performance.now() + o.durationMs;
  const client = async (c: number): Promise<void> => {
    for (let i = c; performance.now() < deadline; i += o.concurrency) {
      const k = i % SEEDS;
      const t0 = performance.now();
      try {
        const got = await infer(s.base, 'mlp_gpu', rows[k] ?? [], o.batch);
        recordUs(latency, (performance.now() - t0) * 1000);
        worstDiff = Math.max(worstDiff, maxDiff(got, want[k] ?? []));
        ok++;
      } catch (e) {
        failed++;
        if (errors.length < 20) errors.push(e instanceof Error ? e.message : String(e));
      }
    }
  };
  const cycles = { ok: 0, failed: 0 };
  const cycler = async (): Promise<void> => {
    while (performance.now() + o.cycleMs / 2 < deadline) {
      await new Promise((r) => setTimeout(r, o.cycleMs / 2));
      try {
        await repository(s.base, 'mlp_cycle', 'load');
        const got = await infer(s.base, 'mlp_cycle', rows[0] ?? [], o.batch);
        worstDiff = Math.max(worstDiff, maxDiff(got, want[0] ?? []));
        await new Promise((r) => setTimeout(r, o.cycleMs / 2));
        await repository(s.base, 'mlp_cycle', 'unload');
        cycles.ok++;
      } catch (e) {
        cycles.failed++;
        if (errors.length < 20) errors.push(e instanceof Error ? e.message : String(e));
      }
    }
  };
  const samples: GpuMetricsSample[] = [];
  const scraper = async (): Promise<void> => {
    const t0 = performance.now();
    while (performance.now() < deadline) {
      try {
        samples.push({
          atS: (performance.now() - t0) / 1000,
          values: await scrapeGpu(metricsBase),
        });
      } catch (e) {
        if (errors.length < 20)
          errors.push(`scrape: ${e instanceof Error ? e.message : String(e)}`);
      }
      await new Promise((r) => setTimeout(r, 5000));
    }
  };
  const t0 = performance.now();
  await Promise.all([
    ...Array.from({ length: o.concurrency }, (_, c) => client(c)),
    cycler(),
    scraper(),
  ]);
  const seconds = (performance.now() - t0) / 1000;
  let alive = true;
  try {
    alive = (await fetch(`${s.base}/v2/health/live`)).status === 200;
  } catch {
    alive = false;
  }
  const crashLines = s.lines.filter((l) => /segmentation|fatal|abort|core dumped/i.test(l));
  await s.stop();
  done();
  await rm(repo, { recursive: true, force: true });

  const result = {
    bench: 'gpu-soak',
    command: commandLine('gpu-soak', argv),
    machine: machineInfo(),
    options: {
      instances: o.instances,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      cycleMs: o.cycleMs,
      batch: o.batch,
      standIn: o.standIn,
    },
    standIn: o.standIn,
    loadSeconds: loadMs / 1000,
    seconds,
    requests: { ok, failed, perSecond: ok / seconds, rowsPerSecond: (ok * o.batch) / seconds },
    latency: summarize(latency),
    maxAbsDiffVsCpu: worstDiff,
    cycles,
    serverAlive: alive,
    crashLines,
    errors,
    gpuMetrics: samples,
    serverLogTail: s.lines.slice(-30),
  } satisfies GpuSoakResult;
  await mkdir(o.out, { recursive: true });
  const file = path.join(o.out, 'gpu-soak.json');
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  const passed = failed === 0 && cycles.failed === 0 && alive && crashLines.length === 0;
  process.stdout.write(
    `gpu-soak: ${ok} requests (${failed} failed) in ${seconds.toFixed(1)} s, ` +
      `${(ok / seconds).toFixed(1)} req/s, p99 ${(result.latency.p99Us / 1000).toFixed(2)} ms; ` +
      `cycles ${cycles.ok} ok ${cycles.failed} failed; max |gpu-cpu| ${worstDiff.toExponential(2)}; ` +
      `server ${alive ? 'up' : 'DOWN'}; ${samples.length} scrapes -> ${file}\n`,
  );
  return passed ? 0 : 1;
}

export const command: SubcommandModule = { flags: FLAGS, main };
