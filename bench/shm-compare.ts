// The shared-memory comparison (issue 28): for `mlp` (a small tensor) and the FP32 identity model at
// 16 and 64 MiB, a fresh infernode per row serves N requests at one in flight, the tensor carried
// by HTTP with the binary extension, by gRPC, or in system shared memory (input written once into a
// registered /dev/shm region, output into one; the request over HTTP names them), while this
// process samples the server's VmRSS every 20 ms. Publishes bench/results/shared-memory.json and
// its section of bench/RESULTS.md.
//
//   npm run bench:shm -- [--requests 20] [--sizes-mib 16,64] [--carriers http-binary,grpc,shared-memory]
//                        [--no-publish]

import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  InferenceClient,
  regionInput,
  SystemSharedMemoryRegion,
  tensor,
  type InferInput,
  type InferOptions,
} from 'infernode/client';
import { commandLine, onInterrupt } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { processMemory } from './measure/process-memory.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { DEFAULT_MODEL_REPOSITORY, REPO_ROOT } from './paths.js';
import { publishSharedMemory } from './report/publish.js';
import { SHM_SCHEMA, type Carrier, type ShmResult, type ShmRow } from './shm/shm-result.js';
import type { SubcommandModule } from './subcommands.js';
import { startInfernode } from './targets/server-process.js';

const MIB = 2 ** 20;
const SAMPLE_MS = 20;
const CARRIERS: readonly Carrier[] = ['http-binary', 'grpc', 'shared-memory', 'ort-alone'];
const ORT_ALONE = fileURLToPath(new URL('./shm/ort-alone.js', import.meta.url));

export const FLAGS = {
  requests: { kind: 'string', default: '20', help: 'Timed requests per row, after one warm-up' },
  'sizes-mib': {
    kind: 'string',
    default: '16,64',
    help: 'Comma list of identity_fp32 tensor sizes, MiB (mlp is always measured)',
  },
  carriers: {
    kind: 'string',
    default: CARRIERS.join(','),
    help: 'Comma list of carriers to measure (http-binary, grpc, shared-memory)',
  },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

interface Workload {
  readonly model: string;
  readonly input: string;
  readonly output: string;
  readonly shape: readonly number[];
}

function workloads(sizes: readonly number[]): Workload[] {
  return [
    { model: 'mlp', input: 'INPUT0', output: 'OUTPUT0', shape: [1, 784] },
    ...sizes.map((bytes) => ({
      model: 'identity_fp32',
      input: 'INPUT0',
      output: 'OUTPUT0',
      shape: [1, bytes / 4],
    })),
  ];
}

async function makeRepository(): Promise<string> {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'infernode-shm-bench-'));
  await cp(path.join(DEFAULT_MODEL_REPOSITORY, 'mlp'), path.join(repo, 'mlp'), { recursive: true });
  const identity = path.join(REPO_ROOT, 'test', 'fixtures', 'repository', 'identity_fp32');
  await cp(identity, path.join(repo, 'identity_fp32'), { recursive: true });
  return repo;
}

function percentiles(latencies: number[], n: number): { p50Ms: number; p99Ms: number } {
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)] ?? 0;
  return { p50Ms: pct(50), p99Ms: pct(99) };
}

/** The floor: the same model and input in ONNX Runtime alone, in a child process. */
async function measureOrtAlone(repo: string, w: Workload, n: number): Promise<ShmRow> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    ORT_ALONE,
    path.join(repo, w.model, '1', 'model.onnx'),
    w.input,
    w.shape.join(','),
    String(n),
  ]);
  const child = JSON.parse(stdout) as {
    idleBytes: number;
    peakBytes: number;
    latenciesMs: number[];
  };
  return {
    model: w.model,
    tensorBytes: w.shape.reduce((a, b) => a * b, 1) * 4,
    carrier: 'ort-alone',
    requests: n,
    ...percentiles(child.latenciesMs, n),
    idleBytes: child.idleBytes,
    peakBytes: child.peakBytes,
  };
}

async function measure(repo: string, w: Workload, carrier: Carrier, n: number): Promise<ShmRow> {
  if (carrier === 'ort-alone') return measureOrtAlone(repo, w, n);
  const elements = w.shape.reduce((a, b) => a * b, 1);
  const bytes = elements * 4;
  const outputBytes = w.model === 'mlp' ? 10 * 4 : bytes;
  const server = await startInfernode(repo, [
    '--model-control-mode=explicit',
    `--load-model=${w.model}`,
    '--allow-client-shm=true',
    `--http-max-input-size=${bytes + 16 * MIB}`,
    `--grpc-max-input-size=${bytes + 16 * MIB}`,
  ]);
  const key = `/infernode-shm-bench-${process.pid}`;
  let region: SystemSharedMemoryRegion | undefined;
  const client = new InferenceClient({
    url: carrier === 'grpc' ? `${server.host}:${server.grpcPort ?? 0}` : server.base,
    protocol: carrier === 'grpc' ? 'grpc' : 'http-binary',
  });
  const forget = onInterrupt(async () => {
    region?.destroy();
    await server.stop();
  });
  try {
    const data = Float32Array.from({ length: elements }, (_, i) => (i % 1000) / 1000);
    let inputs: InferInput[] = [tensor(w.input, 'FP32', w.shape, data)];
    let options: InferOptions = { outputs: [w.output] };
    if (carrier === 'shared-memory') {
      region = SystemSharedMemoryRegion.create(key, bytes + outputBytes);
      region.write(data, 0);
      await client.registerSystemSharedMemory('bench', region.key, region.byteSize);
      inputs = [regionInput(w.input, 'FP32', w.shape, { region: 'bench', byteSize: bytes })];
      options = {
        outputRegions: { [w.output]: { region: 'bench', byteSize: outputBytes, offset: bytes } },
      };
    }
    await sleep(1000); // start-up garbage settles
    const rss = (): number => processMemory(server.pid)?.rssBytes ?? 0;
    const idle = rss();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), SAMPLE_MS);
    const latencies: number[] = [];
    try {
      await client.infer(w.model, inputs, options); // warm-up: first-run allocations
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await client.infer(w.model, inputs, options);
        latencies.push(performance.now() - t0);
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rss(), processMemory(server.pid)?.peakRssBytes ?? 0);
    return {
      model: w.model,
      tensorBytes: bytes,
      carrier,
      requests: n,
      ...percentiles(latencies, n),
      idleBytes: idle,
      peakBytes: peak,
    };
  } finally {
    forget();
    await client.close();
    region?.destroy();
    await server.stop();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(argv, FLAGS).values;
  const n = Number(values.requests);
  if (!Number.isInteger(n) || n < 1) throw new UsageError('--requests must be an integer >= 1');
  const sizes = values['sizes-mib'].split(',').map((t) => {
    const mib = Number(t);
    if (!Number.isInteger(mib) || mib < 1 || mib > 1024)
      throw new UsageError(`--sizes-mib: expected integers 1..1024, got "${t}"`);
    return mib * MIB;
  });
  const carriers = values.carriers.split(',').map((t): Carrier => {
    const c = CARRIERS.find((k) => k === t);
    if (c === undefined)
      throw new UsageError(`--carriers: expected ${CARRIERS.join(', ')}, got "${t}"`);
    return c;
  });
  const startedAt = new Date().toISOString();
  const repo = await makeRepository();
  const rows: ShmRow[] = [];
  try {
    for (const w of workloads(sizes)) {
      for (const carrier of carriers) {
        const row = await measure(repo, w, carrier, n);
        rows.push(row);
        console.log(
          `${w.model} ${(row.tensorBytes / MIB).toFixed(2)} MiB ${carrier}: p50 ` +
            `${row.p50Ms.toFixed(2)} ms p99 ${row.p99Ms.toFixed(2)} ms, peak growth ` +
            `${((row.peakBytes - row.idleBytes) / MIB).toFixed(1)} MiB`,
        );
      }
    }
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
  const result: ShmResult = {
    schema: SHM_SCHEMA,
    command: commandLine('shm', argv),
    startedAt,
    machine: machineInfo(),
    rows,
  };
  if (!values['no-publish']) {
    for (const f of await publishSharedMemory(result)) console.log(`wrote ${f}`);
  }
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
