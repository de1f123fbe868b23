// The GPU hosts' published files: one folder per host, bench/results/gpu-<host>/, holding what
// bench/gpu/gpu-check.sh wrote there (gpu-ort-timing.json, gpu-soak.json, the OCR runs'
// ocr-*.json), read back for their sections of bench/RESULTS.md. No folder, no section.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { GpuOrtTiming, GpuSoakResult } from '../gpu/gpu-result.js';
import { OCR_SCHEMA, type OcrResult } from '../ocr/ocr-result.js';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import { gpuSection, type GpuOcrRun, type GpuResults } from './gpu-report.js';

/**
 * The OCR runs the section knows, in the order it shows them, with what their files do not record.
 * Any other ocr-*.json in the folder follows, named by its file.
 */
const DETECTOR_ONLY =
  "Ran as `webgpu_det`, a copy of `ocr_detector`'s `configs/webgpu.pbtxt` written on the host " +
  '(the bundled `webgpu` set-up is the same today); `ocr_recognizer` kept its CPU `config.pbtxt`.';

const OCR_RUNS: readonly { file: string; label: string; note: string | null }[] = [
  {
    file: 'ocr-webgpu.json',
    label: 'both steps on WebGPU (run 1)',
    note: "Ran as `webgpu`, when both step models carried it; today's `webgpu_all` is the same set-up.",
  },
  { file: 'ocr-webgpu-det.json', label: 'detector on WebGPU (run 1)', note: DETECTOR_ONLY },
  {
    file: 'ocr-webgpu-det-8.json',
    label: 'detector on WebGPU, 8 `ocr` instances (run 1)',
    note:
      `${DETECTOR_ONLY} For this run the \`ocr\` model's instance count was also raised by hand ` +
      'from the bundled 2 to 8, with 8 clients; the result file does not record it.',
  },
  { file: 'ocr-webgpu-det-2.json', label: 'detector on WebGPU (run 2)', note: DETECTOR_ONLY },
  {
    file: 'ocr-webgpu-all-buckets-tried.json',
    label: 'both steps on WebGPU, recogniser batches padded to few shapes (run 2, not kept)',
    note:
      "Both steps on WebGPU, with the `ocr` model padding the recogniser's batches to widths in " +
      'steps of 320 pixels and power-of-two line counts: a change tried for this run and not kept.',
  },
];

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** A file of `bench`, checked for its marker; null when it is not there. */
async function readBench<T extends { bench: string }>(file: string, bench: string) {
  const r = await readJson<T>(file);
  if (r !== null && r.bench !== bench) {
    throw new Error(`${file}: expected bench ${bench}, got ${String(r.bench)}`);
  }
  return r;
}

/**
 * The GPU's model from `nvidia-smi -L` ("GPU 0: NVIDIA H200 (UUID: …)") in a gpu-check log. The
 * logs are git-ignored, so this is only the fallback for result files that do not name the GPU.
 */
export function gpuFromLog(log: string): string | null {
  const m = /^GPU 0: (.+?) \(UUID:/m.exec(log);
  return m?.[1] ?? null;
}

/** Everything in one gpu-<host> folder. */
export async function readGpuResults(dir: string): Promise<GpuResults> {
  const names = (await readdir(dir)).sort();
  const timing = await readBench<GpuOrtTiming>(
    path.join(dir, 'gpu-ort-timing.json'),
    'gpu-ort-timing',
  );
  const soak = await readBench<GpuSoakResult>(path.join(dir, 'gpu-soak.json'), 'gpu-soak');
  const known = OCR_RUNS.filter((r) => names.includes(r.file));
  const others = names
    .filter((n) => /^ocr.*\.json$/.test(n) && !OCR_RUNS.some((r) => r.file === n))
    .map((file) => ({ file, label: file.replace(/\.json$/, ''), note: null }));
  const ocr: GpuOcrRun[] = [];
  for (const run of [...known, ...others]) {
    const file = path.join(dir, run.file);
    const result = await readJson<OcrResult>(file);
    if (result === null) continue;
    if (result.schema !== OCR_SCHEMA) {
      throw new Error(`${file}: expected schema ${OCR_SCHEMA}, got ${String(result.schema)}`);
    }
    ocr.push({ source: path.relative(REPO_ROOT, file), label: run.label, note: run.note, result });
  }
  let gpu = ocr.flatMap((r) => r.result.gpus)[0] ?? null;
  for (const log of names.filter((n) => n.endsWith('.log'))) {
    gpu ??= gpuFromLog(await readFile(path.join(dir, log), 'utf8'));
  }
  return { folder: path.relative(REPO_ROOT, dir), gpu, timing, soak, ocr };
}

/** The sections of every gpu-<host> folder in bench/results, in name order; none without one. */
export async function renderGpuResults(resultsDir: string = RESULTS_DIR): Promise<string[]> {
  const entries = await readdir(resultsDir, { withFileTypes: true }).catch(() => []);
  const dirs = entries
    .filter((e) => e.isDirectory() && e.name.startsWith('gpu-'))
    .map((e) => e.name)
    .sort();
  const sections: string[] = [];
  for (const d of dirs) {
    sections.push(...gpuSection(await readGpuResults(path.join(resultsDir, d))));
  }
  return sections;
}
