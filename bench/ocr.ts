#!/usr/bin/env node
// The OCR bench: images read per second, and the latency of one image, through the bundled `ocr`
// pipeline (a JavaScript model calling the PP-OCRv4 detector and recogniser by BLS) on a fresh
// infernode, at each client concurrency. The images are rendered here with known text (as the
// tests render them) and every answer is checked against it. Publishes bench/results/ocr.json and
// its section of bench/RESULTS.md.
//
//   npm run bench:ocr -- [--concurrency 1,4] [--duration-secs 20] [--warmup 4] [--no-publish]

import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { commandLine, onInterrupt, runEntry } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { newHistogram, recordUs, summarize } from './measure/latency-histogram.js';
import { OCR_CASES } from './model/ocr-images.js';
import { renderTextPng, textFontMissing } from './model/text-image.js';
import { OCR_SCHEMA, type OcrLevel, type OcrResult, type StepStats } from './ocr/ocr-result.js';
import { UsageError } from './options/usage-error.js';
import { DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { publishOcr } from './report/publish.js';
import { startInfernode, type ServerProcess } from './targets/server-process.js';

const STEP_MODELS = ['ocr_detector', 'ocr_recognizer'] as const;

interface OcrOptions {
  readonly concurrency: readonly number[];
  readonly durationMs: number;
  readonly warmup: number;
  readonly publish: boolean;
}

function parseOptions(argv: readonly string[]): OcrOptions {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        concurrency: { type: 'string', default: '1,4' },
        'duration-secs': { type: 'string', default: '20' },
        warmup: { type: 'string', default: '4' },
        'no-publish': { type: 'boolean', default: false },
      },
    }).values;
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const concurrency = values.concurrency.split(',').map((t) => {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 1 || n > 64)
      throw new UsageError(`--concurrency: expected integers 1..64, got "${t}"`);
    return n;
  });
  const seconds = Number(values['duration-secs']);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(
      `--duration-secs: expected a positive number, got "${values['duration-secs']}"`,
    );
  const warmup = Number(values.warmup);
  if (!Number.isInteger(warmup) || warmup < 0)
    throw new UsageError(`--warmup: expected an integer >= 0, got "${values.warmup}"`);
  return { concurrency, durationMs: seconds * 1000, warmup, publish: !values['no-publish'] };
}

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

async function readOne(base: string, p: Payload): Promise<Outcome> {
  const r = await fetch(`${base}/v2/models/ocr/infer`, {
    method: 'POST',
    headers: { 'Inference-Header-Content-Length': String(p.headerLength) },
    body: p.body,
  });
  const json = (await r.json()) as { outputs?: { name: string; data: unknown[] }[] };
  if (r.status !== 200) return 'error';
  const text = json.outputs?.find((o) => o.name === 'TEXT')?.data;
  return JSON.stringify(text) === JSON.stringify(p.lines) ? 'ok' : 'misread';
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
      const outcome = await readOne(server.base, p).catch((): Outcome => 'error');
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

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  const fontMissing = textFontMissing();
  if (fontMissing !== undefined) throw new Error(fontMissing);
  const pngs = OCR_CASES.map((c) => renderTextPng(c.image));
  const payloads = OCR_CASES.map((c, i) => payloadOf(pngs[i] as Buffer, c.lines));
  const imageInfo = await Promise.all(
    OCR_CASES.map(async (c, i) => {
      const meta = await sharp(pngs[i]).metadata();
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
  const server = await startInfernode(DEFAULT_MODEL_REPOSITORY, [
    '--model-control-mode=explicit',
    '--load-model=ocr_detector',
    '--load-model=ocr_recognizer',
    '--load-model=ocr',
    '--log-verbose=0',
  ]);
  const forget = onInterrupt(() => server.stop());
  const levels: OcrLevel[] = [];
  try {
    for (let i = 0; i < options.warmup; i++) {
      const outcome = await readOne(server.base, payloads[i % payloads.length] as Payload);
      if (outcome !== 'ok') throw new Error(`warm-up image ${i}: ${outcome}`);
    }
    for (const c of options.concurrency) {
      const level = await runLevel(server, payloads, c, options.durationMs);
      process.stdout.write(
        `ocr: ${c} client(s): ${level.imagesPerSecond.toFixed(2)} images/s, p50 ` +
          `${(level.latency.p50Us / 1000).toFixed(0)} ms, p99 ${(level.latency.p99Us / 1000).toFixed(0)} ms, ` +
          `${level.misread} misread, ${level.errors} errors\n`,
      );
      levels.push(level);
    }
  } finally {
    await server.stop();
    forget();
  }
  const result: OcrResult = {
    schema: OCR_SCHEMA,
    command: commandLine('bench:ocr', argv),
    startedAt,
    machine,
    images: imageInfo,
    levels,
  };
  if (options.publish) {
    for (const f of await publishOcr(result)) process.stdout.write(`wrote ${f}\n`);
  }
  return levels.some((l) => l.misread > 0 || l.errors > 0) ? 1 : 0;
}

runEntry('ocr', main);
