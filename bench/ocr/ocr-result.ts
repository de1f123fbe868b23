// What the OCR bench records (bench/results/ocr.json): for each server set-up it measured (the
// bundled configs, and with --compare-gpu the `webgpu` ones), and for each client concurrency,
// images read per second through the server's `ocr` model and the latency of one image, with where
// the time went (the detector's and recogniser's compute per call, from the server's statistics).
// A set-up whose server did not start or whose models did not load carries the server's error
// instead of levels.

import type { LatencySummary } from '../measure/latency-histogram.js';
import type { MachineInfo } from '../measure/machine-info.js';

/** /2: the levels moved into `setups`, one entry per server set-up; `gpus` added. */
export const OCR_SCHEMA = 'infernode-bench-ocr/2';

export interface OcrImageInfo {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly pngBytes: number;
  readonly lines: number;
}

/** A step model's statistics over one level, from the server's cumulative counters. */
export interface StepStats {
  readonly model: string;
  /** BLS calls the pipeline made to it. */
  readonly requests: number;
  /** Rows those calls carried (images for the detector, lines for the recogniser). */
  readonly inferences: number;
  /** Runs of the model (the batcher may merge calls). */
  readonly executions: number;
  /** Mean compute (input + infer + output) per call. */
  readonly computeMsPerRequest: number;
}

export interface OcrLevel {
  readonly concurrency: number;
  readonly seconds: number;
  readonly images: number;
  readonly imagesPerSecond: number;
  /** Answers whose lines differed from the rendered text, and failed requests. */
  readonly misread: number;
  readonly errors: number;
  readonly latency: LatencySummary;
  readonly steps: readonly StepStats[];
}

/** One server set-up: a fresh infernode started with, or without, `--model-config-name`. */
export interface OcrSetup {
  /** How tables name it: `cpu` for the bundled config.pbtxt files (KIND_CPU), else the config name. */
  readonly name: string;
  /** The `--model-config-name` the server was started with; null: each model's config.pbtxt. */
  readonly configName: string | null;
  /**
   * Null when the set-up was measured. Otherwise why it could not be: the server's errors (it did
   * not start, a model did not load, or the warm-up images failed), and `levels` is empty.
   */
  readonly unavailable: string | null;
  readonly levels: readonly OcrLevel[];
}

export interface OcrResult {
  readonly schema: typeof OCR_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  /** The NVIDIA GPUs the driver lists (`/proc/driver/nvidia/gpus`), by model; empty without one. */
  readonly gpus: readonly string[];
  readonly images: readonly OcrImageInfo[];
  /** In the order run; the first is the baseline the others' speed-ups are relative to. */
  readonly setups: readonly OcrSetup[];
}
