// Raw ONNX Runtime timings, one session per provider in this process, no server: the bundled mlp
// at several batch sizes, the PP-OCRv4 detector on one 640x640 image and its recogniser, on the CPU
// provider with every core and on WebGPU. Shows where the GPU wins (convolutions, big batches) and where its
// per-run floor loses (tiny models), and what a new input shape on every run costs (the OCR
// recogniser as the pipeline calls it). Each case: mean and p50 of --runs timed runs after 3
// warm-up runs, and the largest difference between the two providers' last outputs. Writes
// <out>/gpu-ort-timing.json.
//
//   node dist/bench/cli.js gpu-timing [--runs 20] [--out bench/out]

import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { GpuOrtTiming, GpuTimingRow } from './gpu/gpu-result.js';
import { machineInfo } from './measure/machine-info.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

interface Case {
  readonly name: string;
  readonly model: string;
  readonly input: string;
  /** The input's shape on each run, warm-up runs first, cycling when there are fewer. */
  readonly shapes: ReadonlyArray<readonly number[]>;
}

const WARMUP = 3;

const CASES: readonly Case[] = [
  ...[1, 64, 1024, 8192].map((b) => ({
    name: `mlp batch ${b}`,
    model: 'mlp',
    input: 'INPUT0',
    shapes: [[b, 784]],
  })),
  {
    name: 'ocr_detector 640x640',
    model: 'ocr_detector',
    input: 'x',
    shapes: [[1, 3, 640, 640]],
  },
  {
    name: 'ocr_recognizer 8 lines x 320 px, one shape',
    model: 'ocr_recognizer',
    input: 'x',
    shapes: [[8, 3, 48, 320]],
  },
  {
    // As the OCR pipeline calls it: the line count and the widest line change with every image.
    name: 'ocr_recognizer, a new shape every run',
    model: 'ocr_recognizer',
    input: 'x',
    shapes: Array.from({ length: 64 }, (_, k) => [1 + (k % 8), 3, 48, 160 + 8 * k]),
  },
];

function filled(shape: readonly number[]): Float32Array {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = ((i * 2654435761) % 1000) / 1000 - 0.5;
  return data;
}

async function time(
  session: InferenceSession,
  c: Case,
  runs: number,
): Promise<{ meanMs: number; p50Ms: number; output: ArrayLike<number> }> {
  const feedsAt = (k: number) => {
    const shape = c.shapes[k % c.shapes.length] ?? [];
    return { [c.input]: new Tensor('float32', filled(shape), [...shape]) };
  };
  let output: ArrayLike<number> = [];
  for (let i = 0; i < WARMUP; i++) await session.run(feedsAt(i));
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const feeds = feedsAt(WARMUP + i);
    const t0 = performance.now();
    const r = await session.run(feeds);
    ms.push(performance.now() - t0);
    output = r[session.outputNames[0] ?? '']?.data as Float32Array;
  }
  ms.sort((a, b) => a - b);
  return {
    meanMs: ms.reduce((a, b) => a + b, 0) / ms.length,
    p50Ms: ms[Math.floor(ms.length / 2)] ?? 0,
    output,
  };
}

/** Every flag of `infernode-bench gpu-timing`: parsing and its --help read this table. */
export const FLAGS = {
  runs: { kind: 'string', default: '20', help: 'Timed runs per case (after 3 warm-up runs)' },
  out: { kind: 'string', default: BENCH_OUT, help: 'Folder for gpu-ort-timing.json' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const runs = Number(values.runs);
  const rows: GpuTimingRow[] = [];
  for (const c of CASES) {
    const file = path.join(DEFAULT_MODEL_REPOSITORY, c.model, '1', 'model.onnx');
    const cpu = await InferenceSession.create(file, {
      executionProviders: ['cpu'],
      intraOpNumThreads: os.availableParallelism(),
    });
    const a = await time(cpu, c, runs);
    await cpu.release();
    let row: GpuTimingRow = { case: c.name, cpuMeanMs: a.meanMs, cpuP50Ms: a.p50Ms };
    try {
      const gpu = await InferenceSession.create(file, { executionProviders: ['webgpu'] });
      const b = await time(gpu, c, runs);
      await gpu.release();
      let diff = 0;
      for (let i = 0; i < a.output.length; i++)
        diff = Math.max(diff, Math.abs((a.output[i] ?? 0) - (b.output[i] ?? 0)));
      row = {
        ...row,
        webgpuMeanMs: b.meanMs,
        webgpuP50Ms: b.p50Ms,
        speedup: a.meanMs / b.meanMs,
        maxAbsDiff: diff,
      };
    } catch (e) {
      row = { ...row, webgpuError: e instanceof Error ? e.message.slice(0, 300) : String(e) };
    }
    rows.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
  }
  const out = path.resolve(values.out);
  await mkdir(out, { recursive: true });
  await writeFile(
    path.join(out, 'gpu-ort-timing.json'),
    `${JSON.stringify({ bench: 'gpu-ort-timing', machine: machineInfo(), runs, rows } satisfies GpuOrtTiming, null, 2)}\n`,
  );
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
