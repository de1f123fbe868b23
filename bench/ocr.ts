// The OCR bench: images read per second, and the latency of one image, through the bundled `ocr`
// pipeline (a JavaScript model calling the PP-OCRv4 detector and recogniser by BLS) on a fresh
// infernode, at each client concurrency. The images are rendered here with known text (as the
// tests render them) and every answer is checked against it. Each server set-up gets its own
// fresh server: the bundled configs (config.pbtxt, KIND_CPU), a `--model-config-name` (`--config-name
// webgpu`: configs/webgpu.pbtxt, the detector on the GPU; `webgpu_all`: both steps), or the bundled
// one and then that one in turn (`--compare-gpu`). A set-up
// other than the bundled one that cannot start (no GPU, no Vulkan) is recorded as unavailable with
// the server's errors. Writes ocr.json to --out-dir (else a new folder under bench/out/), and
// publishes it as bench/results/ocr.json with its section of bench/RESULTS.md.
//
//   npm run bench:ocr -- [--concurrency 1,4] [--duration-secs 20] [--warmup 4]
//     [--compare-gpu | --config-name <name>] [--out-dir <folder>] [--no-publish]

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { commandLine, onInterrupt } from './entry.js';
import { nvidiaGpuModels } from './measure/gpu-models.js';
import { machineInfo } from './measure/machine-info.js';
import { newHistogram, recordUs, summarize } from './measure/latency-histogram.js';
import { OCR_CASES } from './model/ocr-images.js';
import { importSharp, ocrPackagesMissing } from './model/ocr-packages.js';
import { renderTextPng, textFontMissing } from './model/text-image.js';
import { OCR_FLAGS, parseOcrOptions, type OcrOptions } from './ocr/ocr-options.js';
import type { SubcommandModule } from './subcommands.js';
import {
  OCR_SCHEMA,
  type OcrLevel,
  type OcrResult,
  type OcrSetup,
  type StepStats,
} from './ocr/ocr-result.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { speedUp } from './report/ocr-report.js';
import { publishOcr } from './report/publish.js';
import {
  ServerStartError,
  serverErrors,
  startInfernode,
  type ServerProcess,
} from './targets/server-process.js';

const STEP_MODELS = ['ocr_detector', 'ocr_recognizer'] as const;

/** A failed set-up's reason keeps the server's last few errors (a GPU driver can be talkative). */
const MAX_REASONS = 8;

/** One image as a binary-extension request body: the JSON header, then one BYTES element. */
interface Payload {
  readonly body: Buffer;
  readonly headerLength: number;
  readonly lines: readonly string[];
}

function payloadOf(png: Buffer, lines: readonly string[]): Payload {
  const element = Buffer.alloc(4 + png.length);
  element.writeUInt32LE(png.length, 0);
  png.copy(element, 4);
  const header = Buffer.from(
    JSON.stringify({
      inputs: [
        {
          name: 'IMAGE',
          datatype: 'BYTES',
          shape: [1],
          parameters: { binary_data_size: element.length },
        },
      ],
      outputs: [{ name: 'TEXT' }],
    }),
  );
  return { body: Buffer.concat([header, element]), headerLength: header.length, lines };
}

type Outcome = 'ok' | 'misread' | 'error';

interface Answer {
  readonly outcome: Outcome;
  /** For an error: the server's `error` field, or why no answer came. */
  readonly error?: string;
}

async function readOne(base: string, p: Payload): Promise<Answer> {
  try {
    const r = await fetch(`${base}/v2/models/ocr/infer`, {
      method: 'POST',
      headers: { 'Inference-Header-Content-Length': String(p.headerLength) },
      body: p.body,
    });
    const json = (await r.json()) as {
      outputs?: { name: string; data: unknown[] }[];
      error?: unknown;
    };
    if (r.status !== 200) return { outcome: 'error', error: `${r.status}: ${String(json.error)}` };
    const text = json.outputs?.find((o) => o.name === 'TEXT')?.data;
    return { outcome: JSON.stringify(text) === JSON.stringify(p.lines) ? 'ok' : 'misread' };
  } catch (e) {
    return { outcome: 'error', error: e instanceof Error ? e.message : String(e) };
  }
}

interface Counters {
  readonly requests: number;
  readonly inferences: number;
  readonly executions: number;
  readonly computeNs: number;
}

async function counters(base: string, model: string): Promise<Counters> {
  const r = await fetch(`${base}/v2/models/${model}/stats`);
  const body = (await r.json()) as {
    model_stats: {
      inference_count: number;
      execution_count: number;
      inference_stats: Record<string, { count: number; ns: number }>;
    }[];
  };
  const s = body.model_stats[0];
  if (s === undefined) throw new Error(`no statistics for ${model}`);
  const ns = (k: string): number => s.inference_stats[k]?.ns ?? 0;
  return {
    requests: s.inference_stats.success?.count ?? 0,
    inferences: s.inference_count,
    executions: s.execution_count,
    computeNs: ns('compute_input') + ns('compute_infer') + ns('compute_output'),
  };
}

async function runLevel(
  server: ServerProcess,
  payloads: readonly Payload[],
  concurrency: number,
  durationMs: number,
): Promise<OcrLevel> {
  const before = await Promise.all(STEP_MODELS.map((m) => counters(server.base, m)));
  const histogram = newHistogram();
  let images = 0;
  let misread = 0;
  let errors = 0;
  let next = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  const client = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const p = payloads[next++ % payloads.length] as Payload;
      const sent = performance.now();
      const { outcome } = await readOne(server.base, p);
      recordUs(histogram, (performance.now() - sent) * 1000);
      images++;
      if (outcome === 'misread') misread++;
      if (outcome === 'error') errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const seconds = (performance.now() - start) / 1000;
  const after = await Promise.all(STEP_MODELS.map((m) => counters(server.base, m)));
  const steps: StepStats[] = STEP_MODELS.map((model, i) => {
    const a = after[i] as Counters;
    const b = before[i] as Counters;
    const requests = a.requests - b.requests;
    return {
      model,
      requests,
      inferences: a.inferences - b.inferences,
      executions: a.executions - b.executions,
      computeMsPerRequest: requests === 0 ? 0 : (a.computeNs - b.computeNs) / requests / 1e6,
    };
  });
  return {
    concurrency,
    seconds,
    images,
    imagesPerSecond: images / seconds,
    misread,
    errors,
    latency: summarize(histogram),
    steps,
  };
}

/** Starts a server for one set-up; the reason it is unavailable when it could not start. */
async function startSetup(configName: string | null): Promise<ServerProcess | string> {
  try {
    return await startInfernode(DEFAULT_MODEL_REPOSITORY, [
      '--model-control-mode=explicit',
      ...STEP_MODELS.map((m) => `--load-model=${m}`),
      '--load-model=ocr',
      '--log-verbose=0',
      ...(configName === null ? [] : [`--model-config-name=${configName}`]),
    ]);
  } catch (e) {
    // The bundled set-up is the baseline: if it cannot start, the bench itself is broken.
    if (configName === null || !(e instanceof ServerStartError)) throw e;
    const errors = serverErrors(e.lines).slice(-MAX_REASONS);
    return `server ${e.outcome}${errors.length === 0 ? '' : `: ${errors.join('; ')}`}`;
  }
}

/** One set-up on a fresh server: warm-up images, then each concurrency in turn. */
async function measureSetup(
  configName: string | null,
  payloads: readonly Payload[],
  options: OcrOptions,
): Promise<OcrSetup> {
  const name = configName ?? 'cpu';
  const unavailable = (reason: string): OcrSetup => {
    process.stdout.write(`ocr (${name}): unavailable: ${reason}\n`);
    return { name, configName, unavailable: reason, levels: [] };
  };
  const server = await startSetup(configName);
  if (typeof server === 'string') return unavailable(server);
  const forget = onInterrupt(() => server.stop());
  const levels: OcrLevel[] = [];
  try {
    for (let i = 0; i < options.warmup; i++) {
      const answer = await readOne(server.base, payloads[i % payloads.length] as Payload);
      if (answer.outcome === 'ok') continue;
      if (configName === null) throw new Error(`warm-up image ${i}: ${answer.outcome}`);
      // A model that loads on the GPU may still fail to run there (an operator the provider
      // lacks, a lost device); a misread is measured and counted like any other.
      if (answer.outcome === 'error') {
        const logged = serverErrors(server.lines).slice(-MAX_REASONS);
        return unavailable(
          [`warm-up image ${i}: ${answer.error ?? 'error'}`, ...logged].join('; '),
        );
      }
    }
    for (const c of options.concurrency) {
      const level = await runLevel(server, payloads, c, options.durationMs);
      process.stdout.write(
        `ocr (${name}): ${c} client(s): ${level.imagesPerSecond.toFixed(2)} images/s, p50 ` +
          `${(level.latency.p50Us / 1000).toFixed(0)} ms, p99 ${(level.latency.p99Us / 1000).toFixed(0)} ms, ` +
          `${level.misread} misread, ${level.errors} errors\n`,
      );
      levels.push(level);
    }
  } finally {
    await server.stop();
    forget();
  }
  return { name, configName, unavailable: null, levels };
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOcrOptions(argv);
  const cannotRun = textFontMissing() ?? ocrPackagesMissing();
  if (cannotRun !== undefined) throw new Error(cannotRun);
  const sharp = await importSharp();
  const pngs = OCR_CASES.map((c) => renderTextPng(c.image));
  const payloads = OCR_CASES.map((c, i) => payloadOf(pngs[i] as Buffer, c.lines));
  const imageInfo = await Promise.all(
    OCR_CASES.map(async (c, i) => {
      const meta = await sharp(pngs[i] as Buffer).metadata();
      return {
        name: c.name,
        width: meta.width ?? c.image.width,
        height: meta.height ?? c.image.height,
        pngBytes: (pngs[i] as Buffer).length,
        lines: c.lines.length,
      };
    }),
  );
  const machine = machineInfo();
  const startedAt = new Date().toISOString();
  const setups: OcrSetup[] = [];
  for (const configName of options.configNames) {
    setups.push(await measureSetup(configName, payloads, options));
  }
  const result: OcrResult = {
    schema: OCR_SCHEMA,
    command: commandLine('ocr', argv),
    startedAt,
    machine,
    gpus: nvidiaGpuModels(),
    images: imageInfo,
    setups,
  };
  for (const s of setups.slice(1)) {
    for (const l of s.levels) {
      const x = speedUp(result, s, l);
      if (x === null) continue;
      process.stdout.write(
        `ocr (${s.name}): ${l.concurrency} client(s): ${x.toFixed(2)}× ${setups[0]?.name} images/s\n`,
      );
    }
  }
  const outDir =
    options.outDir ??
    path.join(BENCH_OUT, `${startedAt.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z')}-ocr`);
  await mkdir(outDir, { recursive: true });
  const json = path.join(outDir, 'ocr.json');
  await writeFile(json, `${JSON.stringify(result, null, 2)}\n`);
  const shown = path.relative(process.cwd(), json);
  process.stdout.write(`wrote ${shown.startsWith('..') ? json : shown}\n`);
  const measured = setups.some((s) => s.levels.length > 0);
  // Nothing measured (only a set-up that could not start): the published result stays as it was.
  if (options.publish && measured) {
    for (const f of await publishOcr(result)) process.stdout.write(`wrote ${f}\n`);
  }
  const levels = setups.flatMap((s) => s.levels);
  return !measured || levels.some((l) => l.misread > 0 || l.errors > 0) ? 1 : 0;
}

export const command: SubcommandModule = { flags: OCR_FLAGS, main };
