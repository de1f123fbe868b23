// One model version's hot-path series (VersionSeries): plain tallies that its reporters add to and
// model-families.ts moves into prom-client at scrape time, with the labels and buckets they share.

import { DeltaCell, HistogramCell, type SeriesLabels } from './series-tally.js';

/** Latency buckets in seconds: 100 µs .. 30 s, dense where interactive inference lives. */
export const LATENCY_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
  30,
];

/**
 * Batch-size buckets (rows per model execution): powers of two up to 1024. One family serves every
 * model, so the buckets cannot follow each model's max_batch_size; larger batches land in +Inf.
 */
export const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

export const MODEL_LABELS = ['model', 'version'] as const;
export type ModelLabel = (typeof MODEL_LABELS)[number];

/** Triton's failure reasons (label `reason` of nv_inference_request_failure). */
export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';
export const FAILURE_REASONS: readonly FailureReason[] = [
  'REJECTED',
  'CANCELED',
  'BACKEND',
  'OTHER',
];

/**
 * One model version's hot-path series, shared by every reporter of that version (during a reload
 * the old and the new instance report to the same series at once, as prom-client children did).
 */
export class VersionSeries {
  readonly success = new DeltaCell();
  readonly failures: Readonly<Record<FailureReason, DeltaCell>> = {
    REJECTED: new DeltaCell(),
    CANCELED: new DeltaCell(),
    BACKEND: new DeltaCell(),
    OTHER: new DeltaCell(),
  };
  readonly inferences = new DeltaCell();
  readonly executions = new DeltaCell();
  /** A gauge moved by inc/dec: the delta may be negative. */
  readonly pending = new DeltaCell();
  readonly requestUs = new DeltaCell();
  readonly queueUs = new DeltaCell();
  readonly inputUs = new DeltaCell();
  readonly inferUs = new DeltaCell();
  readonly outputUs = new DeltaCell();
  readonly requestLatency = new HistogramCell(LATENCY_BUCKETS_SECONDS);
  readonly queueLatency = new HistogramCell(LATENCY_BUCKETS_SECONDS);
  readonly computeLatency = new HistogramCell(LATENCY_BUCKETS_SECONDS);
  readonly batchSize = new HistogramCell(BATCH_SIZE_BUCKETS);
  readonly restarts = new DeltaCell();
  readonly cacheHits = new DeltaCell();
  readonly cacheMisses = new DeltaCell();
  readonly cacheHitUs = new DeltaCell();
  readonly cacheMissUs = new DeltaCell();

  constructor(readonly labels: SeriesLabels) {}
}
