// What the OCR bench records (bench/results/ocr.json): for each client concurrency, images read
// per second through the server's `ocr` model and the latency of one image, with where the time
// went (the detector's and recogniser's compute per call, from the server's statistics).

import type { LatencySummary } from '../measure/latency-histogram.js';
import type { MachineInfo } from '../measure/machine-info.js';

export const OCR_SCHEMA = 'infernode-bench-ocr/1';

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

export interface OcrResult {
  readonly schema: typeof OCR_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly images: readonly OcrImageInfo[];
  readonly levels: readonly OcrLevel[];
}
