// The per model-version reporter: statistics and Prometheus children bound once at load, so
// schedulers report a request or an execution with plain method calls and no label lookups.

import type { Counter, Gauge, Histogram } from 'prom-client';
import { ModelStats } from './model-stats.js';
import type { MetricsCatalog } from './metrics-catalog.js';

/** Triton's failure reasons (label `reason` of nv_inference_request_failure). */
export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';

type CounterChild = ReturnType<Counter<string>['labels']>;
type GaugeChild = ReturnType<Gauge<string>['labels']>;
type HistogramChild = ReturnType<Histogram<string>['labels']>;

export interface RequestTiming {
  readonly totalNs: number;
  readonly queueNs: number;
  readonly inputNs: number;
  readonly inferNs: number;
  readonly outputNs: number;
}

export class ModelReporter {
  readonly stats: ModelStats;
  private readonly success: CounterChild;
  private readonly failures: Record<FailureReason, CounterChild>;
  private readonly inferences: CounterChild;
  private readonly executions: CounterChild;
  private readonly pending: GaugeChild;
  private readonly requestUs: CounterChild;
  private readonly queueUs: CounterChild;
  private readonly inputUs: CounterChild;
  private readonly inferUs: CounterChild;
  private readonly outputUs: CounterChild;
  private readonly requestLatency: HistogramChild;
  private readonly queueLatency: HistogramChild;
  private readonly computeLatency: HistogramChild;
  private readonly batchSizes: HistogramChild;
  private readonly restarts: CounterChild;
  private readonly catalog: MetricsCatalog;
  private pendingCount = 0;

  constructor(
    catalog: MetricsCatalog,
    readonly model: string,
    readonly version: number,
    private readonly now: () => number = Date.now,
  ) {
    const labels = { model, version: String(version) };
    this.catalog = catalog;
    this.stats = new ModelStats(model, version);
    this.success = catalog.requestSuccess.labels(labels);
    const failure = (reason: FailureReason): CounterChild =>
      catalog.requestFailure.labels({ ...labels, reason });
    this.failures = {
      REJECTED: failure('REJECTED'),
      CANCELED: failure('CANCELED'),
      BACKEND: failure('BACKEND'),
      OTHER: failure('OTHER'),
    };
    this.inferences = catalog.inferenceCount.labels(labels);
    this.executions = catalog.execCount.labels(labels);
    this.pending = catalog.pendingRequests.labels(labels);
    // inc/dec, never set: during a reload the old and the new instance of a version report to the
    // same series at once. inc(0) makes the series exist from the start.
    this.pending.inc(0);
    this.requestUs = catalog.requestDurationUs.labels(labels);
    this.queueUs = catalog.queueDurationUs.labels(labels);
    this.inputUs = catalog.computeInputDurationUs.labels(labels);
    this.inferUs = catalog.computeInferDurationUs.labels(labels);
    this.outputUs = catalog.computeOutputDurationUs.labels(labels);
    this.requestLatency = catalog.requestLatency.labels(labels);
    this.queueLatency = catalog.queueLatency.labels(labels);
    this.computeLatency = catalog.computeLatency.labels(labels);
    this.batchSizes = catalog.batchSize.labels(labels);
    this.restarts = catalog.instanceRestarts.labels(labels);
    // As for the pending gauge: the series exists (at 0) from load, so a first restart is a change.
    this.restarts.inc(0);
  }

  /** The sequence batcher's occupancy (set, not inc/dec: one batcher owns a version's series). */
  sequences(s: {
    readonly live: number;
    readonly slotsInUse: number;
    readonly slots: number;
    readonly backlog: number;
  }): void {
    const labels = { model: this.model, version: String(this.version) };
    this.catalog.sequencesLive.labels(labels).set(s.live);
    this.catalog.sequenceSlotsInUse.labels(labels).set(s.slotsInUse);
    this.catalog.sequenceSlots.labels(labels).set(s.slots);
    this.catalog.sequenceBacklog.labels(labels).set(s.backlog);
  }

  sequenceIdleReleased(): void {
    this.catalog.sequencesIdleReleased
      .labels({ model: this.model, version: String(this.version) })
      .inc();
  }

  /** Requests enqueued and not yet executing (nv_inference_pending_request_count). */
  get pendingRequests(): number {
    return this.pendingCount;
  }

  enqueued(): void {
    this.pendingCount += 1;
    this.pending.inc();
  }

  /** The request left the queue: dispatched to an instance, rejected, timed out or cancelled. */
  dequeued(): void {
    this.pendingCount -= 1;
    this.pending.dec();
  }

  execution(batchSize: number, inputNs: number, inferNs: number, outputNs: number): void {
    this.stats.recordExecution(batchSize, inputNs, inferNs, outputNs);
    this.inferences.inc(batchSize);
    this.executions.inc();
    this.computeLatency.observe(inferNs / 1e9);
    this.batchSizes.observe(batchSize);
  }

  succeeded(t: RequestTiming): void {
    this.stats.recordSuccess(t.totalNs, t.queueNs, t.inputNs, t.inferNs, t.outputNs, this.now());
    this.success.inc();
    this.requestUs.inc(t.totalNs / 1e3);
    this.queueUs.inc(t.queueNs / 1e3);
    this.inputUs.inc(t.inputNs / 1e3);
    this.inferUs.inc(t.inferNs / 1e3);
    this.outputUs.inc(t.outputNs / 1e3);
    this.requestLatency.observe(t.totalNs / 1e9);
    this.queueLatency.observe(t.queueNs / 1e9);
  }

  /** A worker was started to replace a lost instance worker (infernode_instance_restarts_total). */
  instanceRestarted(): void {
    this.restarts.inc();
  }

  failed(reason: FailureReason, totalNs: number): void {
    this.stats.recordFailure(totalNs, this.now());
    this.failures[reason].inc();
  }
}
