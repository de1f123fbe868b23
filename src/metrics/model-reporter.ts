// The per model-version reporter: statistics and the version's metric series bound once at load,
// so schedulers report a request or an execution with plain method calls that add to numbers: no
// label lookup, no hashing (the catalog hands the tallies to prom-client at scrape time).

import { ModelStats } from './model-stats.js';
import type { FailureReason, MetricsCatalog, VersionSeries } from './metrics-catalog.js';

export type { FailureReason } from './metrics-catalog.js';

export interface RequestTiming {
  readonly totalNs: number;
  readonly queueNs: number;
  readonly inputNs: number;
  readonly inferNs: number;
  readonly outputNs: number;
}

export class ModelReporter {
  readonly stats: ModelStats;
  private readonly series: VersionSeries;
  private readonly catalog: MetricsCatalog;
  private pendingCount = 0;

  constructor(
    catalog: MetricsCatalog,
    readonly model: string,
    readonly version: number,
    private readonly now: () => number = Date.now,
  ) {
    this.catalog = catalog;
    this.stats = new ModelStats(model, version);
    this.series = catalog.series(model, version);
    // inc/dec, never set: during a reload the old and the new instance of a version report to the
    // same series at once. add(0) makes the series exist from the start.
    this.series.pending.add(0);
    // As for the pending gauge: the series exists (at 0) from load, so a first restart is a change.
    this.series.restarts.add(0);
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
    this.series.pending.add(1);
  }

  /** The request left the queue: dispatched to an instance, rejected, timed out or cancelled. */
  dequeued(): void {
    this.pendingCount -= 1;
    this.series.pending.add(-1);
  }

  execution(batchSize: number, inputNs: number, inferNs: number, outputNs: number): void {
    this.stats.recordExecution(batchSize, inputNs, inferNs, outputNs);
    const s = this.series;
    s.inferences.add(batchSize);
    s.executions.add(1);
    s.computeLatency.observe(inferNs / 1e9);
    s.batchSize.observe(batchSize);
  }

  succeeded(t: RequestTiming): void {
    this.stats.recordSuccess(t.totalNs, t.queueNs, t.inputNs, t.inferNs, t.outputNs, this.now());
    const s = this.series;
    s.success.add(1);
    s.requestUs.add(t.totalNs / 1e3);
    s.queueUs.add(t.queueNs / 1e3);
    s.inputUs.add(t.inputNs / 1e3);
    s.inferUs.add(t.inferNs / 1e3);
    s.outputUs.add(t.outputNs / 1e3);
    s.requestLatency.observe(t.totalNs / 1e9);
    s.queueLatency.observe(t.queueNs / 1e9);
  }

  /** A request answered from the response cache (`lookupNs`: the lookup's time). */
  cacheHit(totalNs: number, lookupNs: number): void {
    this.stats.recordCacheHit(totalNs, lookupNs, this.now());
    const s = this.series;
    s.success.add(1);
    s.requestUs.add(totalNs / 1e3);
    s.requestLatency.observe(totalNs / 1e9);
    s.cacheHits.add(1);
    s.cacheHitUs.add(lookupNs / 1e3);
  }

  /** A request the cache missed, after its run: `ns` is its lookup plus its insertion. */
  cacheMiss(ns: number): void {
    this.stats.recordCacheMiss(ns);
    this.series.cacheMisses.add(1);
    this.series.cacheMissUs.add(ns / 1e3);
  }

  /** A worker was started to replace a lost instance worker (infernode_instance_restarts_total). */
  instanceRestarted(): void {
    this.series.restarts.add(1);
  }

  failed(reason: FailureReason, totalNs: number): void {
    this.stats.recordFailure(totalNs, this.now());
    this.series.failures[reason].add(1);
  }
}
