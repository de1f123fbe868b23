// The per model-version families, labelled `model` and `version` (failures add `reason`): Triton's
// counters with its names, infernode's latency and batch-size histograms, worker restarts and the
// sequence batcher's occupancy. Each version binds its series once when it loads (`series()`, used
// by model-reporter.ts): plain tallies that the hot path adds to, moved into prom-client by each
// family's `collect()` when /metrics is scraped (series-tally.ts says why), so a request does no
// label lookup or hashing.

import { Counter, Gauge, Histogram } from 'prom-client';
import { FamilyGroup } from './family-group.js';
import type { DeltaCell, HistogramCell } from './series-tally.js';
import {
  BATCH_SIZE_BUCKETS,
  FAILURE_REASONS,
  LATENCY_BUCKETS_SECONDS,
  MODEL_LABELS,
  type ModelLabel,
  VersionSeries,
} from './version-series.js';

type DeltaOf = (s: VersionSeries) => DeltaCell;
type HistogramOf = (s: VersionSeries) => HistogramCell;

export class ModelFamilies extends FamilyGroup {
  /** Keyed `model\0version`. Declared before the families: their collect() closures read it. */
  readonly #series = new Map<string, VersionSeries>();

  // Triton's counters (core/src/metrics.cc)
  readonly requestSuccess = this.counter(
    'nv_inference_request_success',
    'Number of successful inference requests, all batch sizes',
    (s) => s.success,
  );
  readonly requestFailure = new Counter<ModelLabel | 'reason'>({
    name: 'nv_inference_request_failure',
    help: 'Number of failed inference requests, all batch sizes',
    labelNames: [...MODEL_LABELS, 'reason'],
    registers: [this.registry],
    collect: () => {
      for (const s of this.#series.values()) {
        for (const reason of FAILURE_REASONS) {
          s.failures[reason].flush(this.requestFailure, { ...s.labels, reason });
        }
      }
    },
  });
  readonly inferenceCount = this.counter(
    'nv_inference_count',
    'Number of inferences performed (does not include cached requests)',
    (s) => s.inferences,
  );
  readonly execCount = this.counter(
    'nv_inference_exec_count',
    'Number of model executions performed (does not include cached requests)',
    (s) => s.executions,
  );
  readonly pendingRequests: Gauge<ModelLabel> = new Gauge<ModelLabel>({
    name: 'nv_inference_pending_request_count',
    help: 'Instantaneous number of pending requests awaiting execution per-model.',
    labelNames: MODEL_LABELS,
    registers: [this.registry],
    collect: (): void => this.#flushDeltas(this.pendingRequests, (s) => s.pending),
  });
  readonly requestDurationUs = this.counter(
    'nv_inference_request_duration_us',
    'Cumulative inference request duration in microseconds (includes cached requests)',
    (s) => s.requestUs,
  );
  readonly queueDurationUs = this.counter(
    'nv_inference_queue_duration_us',
    'Cumulative inference queuing duration in microseconds (includes cached requests)',
    (s) => s.queueUs,
  );
  readonly computeInputDurationUs = this.counter(
    'nv_inference_compute_input_duration_us',
    'Cumulative compute input duration in microseconds (does not include cached requests)',
    (s) => s.inputUs,
  );
  readonly computeInferDurationUs = this.counter(
    'nv_inference_compute_infer_duration_us',
    'Cumulative compute inference duration in microseconds (does not include cached requests)',
    (s) => s.inferUs,
  );
  readonly computeOutputDurationUs = this.counter(
    'nv_inference_compute_output_duration_us',
    'Cumulative inference compute output duration in microseconds (does not include cached requests)',
    (s) => s.outputUs,
  );
  // Triton's response cache counters (core/src/metrics.cc), in its units: durations in microseconds.
  // The cache-wide figures are cache-families.ts's.
  readonly cacheHitCount = this.counter(
    'nv_cache_num_hits_per_model',
    'Number of cache hits per model',
    (s) => s.cacheHits,
  );
  readonly cacheMissCount = this.counter(
    'nv_cache_num_misses_per_model',
    'Number of cache misses per model',
    (s) => s.cacheMisses,
  );
  readonly cacheHitDurationUs = this.counter(
    'nv_cache_hit_duration_per_model',
    'Total cache hit duration per model, in microseconds',
    (s) => s.cacheHitUs,
  );
  readonly cacheMissDurationUs = this.counter(
    'nv_cache_miss_duration_per_model',
    'Total cache miss (insert + miss) duration per model, in microseconds',
    (s) => s.cacheMissUs,
  );
  readonly loadDurationSecs = new Gauge<ModelLabel>({
    name: 'nv_model_load_duration_secs',
    help: 'Model load time in seconds',
    labelNames: MODEL_LABELS,
    registers: [this.registry],
  });

  // infernode's latency histograms: Triton only has cumulative counters and opt-in summaries, and
  // its users ask for histograms that Prometheus can aggregate across replicas.
  readonly requestLatency = this.histogram(
    'infernode_request_duration_seconds',
    'End-to-end inference request latency, from validated request to response ready',
    (s) => s.requestLatency,
  );
  readonly queueLatency = this.histogram(
    'infernode_queue_duration_seconds',
    'Time an inference request waited in the scheduler queue',
    (s) => s.queueLatency,
  );
  readonly computeLatency = this.histogram(
    'infernode_compute_infer_duration_seconds',
    'Time per model execution inside ONNX Runtime session.run',
    (s) => s.computeLatency,
  );

  /** With nv_inference_count / nv_inference_exec_count, shows how well the batcher batches. */
  readonly batchSize: Histogram<ModelLabel> = new Histogram<ModelLabel>({
    name: 'infernode_batch_size',
    help: 'Rows (inferences) per model execution: the dynamic batcher merges requests into one run',
    labelNames: MODEL_LABELS,
    buckets: BATCH_SIZE_BUCKETS,
    registers: [this.registry],
    collect: (): void => this.#flushHistograms(this.batchSize, (s) => s.batchSize),
  });

  /**
   * Worker restarts: each worker thread started to replace a lost one (it died, its task handler
   * threw, or its session failed to load again). Triton has no equivalent: its instances are not
   * replaced. A steady climb is a crash loop; the pool spaces the restarts out (restart-backoff.ts).
   */
  readonly instanceRestarts = this.counter(
    'infernode_instance_restarts_total',
    'Model instance workers started to replace a lost one (died, threw, or failed to load again)',
    (s) => s.restarts,
  );

  // The sequence batcher's occupancy (sequence models only). Per-step latency is
  // infernode_request_duration_seconds: each request of a sequence is one step.
  readonly sequencesLive = this.gauge(
    'infernode_sequence_live',
    'Sequences started and not yet ended or released, holding a slot or waiting for one',
  );
  readonly sequenceSlotsInUse = this.gauge(
    'infernode_sequence_slots_in_use',
    'Sequence batcher state slots held by a sequence',
  );
  readonly sequenceSlots = this.gauge(
    'infernode_sequence_slots',
    'Sequence batcher state slots (direct: max_batch_size per instance; oldest: max_candidate_sequences)',
  );
  readonly sequenceBacklog = this.gauge(
    'infernode_sequence_backlog',
    'Started sequences waiting for a free slot',
  );
  readonly sequencesIdleReleased = this.counter(
    'infernode_sequence_idle_released_total',
    'Sequences released after max_sequence_idle_microseconds without a request',
  );

  /**
   * Drops every series of a model version that no longer serves (unloaded, or not selected by a
   * reload), as Triton removes an unloaded model's metrics. A version that is reloaded in place
   * keeps its series: its counters continue.
   */
  forget(model: string, version: number): void {
    const labels = { model, version: String(version) };
    // Reporters still holding the old series (requests finishing) add to a detached tally.
    this.#series.delete(seriesKey(model, version));
    for (const reason of FAILURE_REASONS) {
      this.requestFailure.remove({ ...labels, reason });
    }
    for (const family of [
      this.requestSuccess,
      this.inferenceCount,
      this.execCount,
      this.pendingRequests,
      this.requestDurationUs,
      this.queueDurationUs,
      this.computeInputDurationUs,
      this.computeInferDurationUs,
      this.computeOutputDurationUs,
      this.cacheHitCount,
      this.cacheMissCount,
      this.cacheHitDurationUs,
      this.cacheMissDurationUs,
      this.loadDurationSecs,
      this.sequencesLive,
      this.sequenceSlotsInUse,
      this.sequenceSlots,
      this.sequenceBacklog,
      this.sequencesIdleReleased,
      this.requestLatency,
      this.queueLatency,
      this.computeLatency,
      this.batchSize,
      this.instanceRestarts,
    ]) {
      family.remove(labels);
    }
  }

  /** The version's hot-path series, created on first use and shared until it is forgotten. */
  series(model: string, version: number): VersionSeries {
    const key = seriesKey(model, version);
    let s = this.#series.get(key);
    if (s === undefined) {
      s = new VersionSeries({ model, version: String(version) });
      this.#series.set(key, s);
    }
    return s;
  }

  #flushDeltas(family: Counter<ModelLabel> | Gauge<ModelLabel>, cell: DeltaOf): void {
    for (const s of this.#series.values()) cell(s).flush(family, s.labels);
  }

  #flushHistograms(family: Histogram<ModelLabel>, cell: HistogramOf): void {
    for (const s of this.#series.values()) cell(s).flush(family, s.labels);
  }

  /** A per-version counter; `cell` (if any) picks its tally, flushed at scrape time. */
  private counter(name: string, help: string, cell?: DeltaOf): Counter<ModelLabel> {
    const family: Counter<ModelLabel> = new Counter<ModelLabel>({
      name,
      help,
      labelNames: MODEL_LABELS,
      registers: [this.registry],
      ...(cell === undefined ? {} : { collect: () => this.#flushDeltas(family, cell) }),
    });
    return family;
  }

  private gauge(name: string, help: string): Gauge<ModelLabel> {
    return new Gauge<ModelLabel>({
      name,
      help,
      labelNames: MODEL_LABELS,
      registers: [this.registry],
    });
  }

  private histogram(name: string, help: string, cell: HistogramOf): Histogram<ModelLabel> {
    const family: Histogram<ModelLabel> = new Histogram<ModelLabel>({
      name,
      help,
      labelNames: MODEL_LABELS,
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [this.registry],
      collect: () => this.#flushHistograms(family, cell),
    });
    return family;
  }
}

const seriesKey = (model: string, version: number): string => `${model}\0${version}`;
