// The one metrics catalog: every Prometheus family infernode exports, with Triton's names and labels
// (`model`, `version`; failures add `reason`). Families are created once per registry; each model
// version binds its series once when it loads (`series(model, version)`, used by model-reporter.ts):
// plain tallies that the hot path adds to, moved into prom-client by each family's `collect()` when
// /metrics is scraped (series-tally.ts says why), so a request does no label lookup or hashing.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CacheUsage } from '../cache/response-cache.js';
import type { GpuReading, GpuSample } from './gpu-sample.js';
import type { HostReading } from './host-sample.js';
import { DeltaCell, HistogramCell, type SeriesLabels } from './series-tally.js';
import { ThreadMetrics } from './thread-metrics.js';
import type { ThreadReading } from './thread-sampler.js';

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

const MODEL_LABELS = ['model', 'version'] as const;
type ModelLabel = (typeof MODEL_LABELS)[number];

/** Triton's failure reasons (label `reason` of nv_inference_request_failure). */
export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';
const FAILURE_REASONS: readonly FailureReason[] = ['REJECTED', 'CANCELED', 'BACKEND', 'OTHER'];

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

type DeltaOf = (s: VersionSeries) => DeltaCell;
type HistogramOf = (s: VersionSeries) => HistogramCell;

export class MetricsCatalog {
  readonly registry = new Registry();
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

  /** Reads the client-memory budget's reservations; set once by the server (watchClientMemory). */
  #clientMemory: () => number = () => 0;

  /**
   * Bytes held for clients — unread answers, stream windows, HTTP request bodies being read — over
   * every gRPC stream, WebSocket and HTTP request (--client-memory-budget, docs/operations.md
   * "Hostile clients"). Not Triton's.
   */
  readonly clientMemoryReserved = new Gauge({
    name: 'infernode_client_memory_reserved_bytes',
    help: 'Bytes reserved from --client-memory-budget: answers clients have not read, stream windows, HTTP request bodies',
    registers: [this.registry],
    collect: (): void => this.clientMemoryReserved.set(this.#clientMemory()),
  });

  /** Makes infernode_client_memory_reserved_bytes report `read()`. */
  watchClientMemory(read: () => number): void {
    this.#clientMemory = read;
  }

  /** Whether watchCache created the cache-wide families (once per registry). */
  #cacheFamilies = false;

  /**
   * The response cache's own figures, read at each scrape: entries, bytes held (keys included),
   * the byte budget and evictions. Triton's cache-wide families were dropped from its core when
   * caches became plugins; these are infernode's, created only on a server with a cache.
   */
  watchCache(read: () => CacheUsage): void {
    if (this.#cacheFamilies) return;
    this.#cacheFamilies = true;
    const gauge = (name: string, help: string, value: (u: CacheUsage) => number): void => {
      const g: Gauge = new Gauge({
        name,
        help,
        registers: [this.registry],
        collect: (): void => g.set(value(read())),
      });
    };
    gauge('infernode_cache_entries', 'Responses held in the response cache', (u) => u.entries);
    gauge(
      'infernode_cache_bytes',
      'Bytes held in the response cache, keys and per-entry overhead included',
      (u) => u.bytes,
    );
    gauge(
      'infernode_cache_budget_bytes',
      'The response cache byte budget (--cache-config local,size)',
      (u) => u.budget,
    );
    gauge(
      'infernode_cache_evictions',
      'Entries evicted from the response cache to make room, since start',
      (u) => u.evictions,
    );
  }

  /** Every live thread's readings and the host's, taken each --metrics-interval-ms. */
  readonly threads = new ThreadMetrics();

  // Per-thread figures, one series per live thread (thread-metrics.ts says which labels): where the
  // one-thread ceiling shows, a main thread at utilization 1 while workers idle.
  readonly threadUtilization = this.threadGauge(
    'infernode_thread_event_loop_utilization',
    'Event-loop utilization (0..1) of each thread over the last metrics interval; for a model-instance worker, the share of time spent running its model',
    (r) => r.utilization,
  );
  readonly threadDelay = this.threadGauge(
    'infernode_thread_event_loop_delay_p99_seconds',
    'p99 of the event-loop delay of the main and each front-end thread over the last metrics interval, in seconds',
    (r) => r.delayP99Seconds,
  );
  readonly threadHeap = this.threadGauge(
    'infernode_thread_heap_used_bytes',
    "V8 heap in use by each thread (its own isolate's), in bytes",
    (r) => r.heapUsedBytes,
  );
  /** The process's resident memory: every thread's heap, ORT's buffers and shared memory. */
  readonly residentMemory = new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size in bytes.',
    registers: [this.registry],
    collect: (): void => this.residentMemory.set(process.memoryUsage.rss()),
  });

  /** Whether watchCpu created the host CPU families (once per registry). */
  #cpuFamilies = false;

  /**
   * Triton's host CPU families (--allow-cpu-metrics), read on the metrics interval (host-sample.ts
   * computes them as Triton does). Created by `watchCpu`, so a server without CPU metrics has not
   * even their HELP lines.
   */
  watchCpu(): void {
    if (this.#cpuFamilies) return;
    this.#cpuFamilies = true;
    const gauge = (name: string, help: string, value: (h: HostReading) => number): void => {
      const g: Gauge = new Gauge({
        name,
        help,
        registers: [this.registry],
        collect: (): void => {
          const host = this.threads.host;
          if (host !== undefined) g.set(value(host));
        },
      });
    };
    // Triton's names and help texts (core/src/metrics.cc).
    gauge('nv_cpu_utilization', 'CPU utilization rate [0.0 - 1.0]', (h) => h.cpuUtilization);
    gauge(
      'nv_cpu_memory_total_bytes',
      'CPU total memory (RAM), in bytes',
      (h) => h.memoryTotalBytes,
    );
    gauge('nv_cpu_memory_used_bytes', 'CPU used memory (RAM), in bytes', (h) => h.memoryUsedBytes);
  }

  /** infernode_cache_errors_total, created by the first `cacheErrors` call (a remote cache's). */
  #cacheErrors: Counter<'op'> | undefined;

  /**
   * Failed lookups and inserts of a remote response cache (Redis slow, down or answering what
   * cannot be read), by `op`: each was a miss served by the model, never a failed request. Created
   * only on a server with a Redis cache; both series start at 0.
   */
  cacheErrors(): Counter<'op'> {
    if (this.#cacheErrors === undefined) {
      this.#cacheErrors = new Counter<'op'>({
        name: 'infernode_cache_errors_total',
        help: 'Response cache lookups and inserts that failed (served by the model), by op',
        labelNames: ['op'],
        registers: [this.registry],
      });
      this.#cacheErrors.inc({ op: 'lookup' }, 0);
      this.#cacheErrors.inc({ op: 'insert' }, 0);
    }
    return this.#cacheErrors;
  }

  /** Whether watchGpus created the GPU families (once per registry). */
  #gpuFamilies = false;

  /**
   * Triton's GPU families, one series per GPU labelled `gpu_uuid` only, as Triton's (DCGM) are; read
   * from nvidia-smi (gpu-metrics.ts) at each scrape. Created by `watchGpus`, so a server without
   * GPU metrics (--allow-gpu-metrics=false) has not even their HELP lines. A figure the GPU does
   * not report has no series.
   */
  watchGpus(read: () => readonly GpuReading[]): void {
    if (this.#gpuFamilies) return;
    this.#gpuFamilies = true;
    const gauge = (
      name: string,
      help: string,
      value: (s: GpuSample) => number | undefined,
    ): void => {
      const family: Gauge<'gpu_uuid'> = new Gauge<'gpu_uuid'>({
        name,
        help,
        labelNames: ['gpu_uuid'],
        registers: [this.registry],
        collect: () => {
          // Reset first: a GPU whose figure went [N/A], or nvidia-smi restarting, drops its series.
          family.reset();
          for (const g of read()) {
            const v = g.sample === undefined ? undefined : value(g.sample);
            if (v !== undefined) family.set({ gpu_uuid: g.uuid }, v);
          }
        },
      });
    };
    // Triton's names and help texts (core/src/metrics.cc).
    gauge('nv_gpu_utilization', 'GPU utilization rate [0.0 - 1.0)', (s) => s.utilization);
    gauge('nv_gpu_memory_total_bytes', 'GPU total memory, in bytes', (s) => s.memoryTotalBytes);
    gauge('nv_gpu_memory_used_bytes', 'GPU used memory, in bytes', (s) => s.memoryUsedBytes);
    gauge('nv_gpu_power_usage', 'GPU power usage in watts', (s) => s.powerWatts);
    gauge('nv_gpu_power_limit', 'GPU power management limit in watts', (s) => s.powerLimitWatts);
    const energy: Counter<'gpu_uuid'> = new Counter<'gpu_uuid'>({
      name: 'nv_energy_consumption',
      help: 'GPU energy consumption in joules since the Triton Server started',
      labelNames: ['gpu_uuid'],
      registers: [this.registry],
      collect: () => {
        // The total is kept by EnergyTotal (it never goes back); the counter shows it as it is.
        energy.reset();
        for (const g of read()) {
          if (g.energyJoules !== undefined) energy.inc({ gpu_uuid: g.uuid }, g.energyJoules);
        }
      },
    });
  }

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

  /** Threads accepting HTTP and WebSocket connections (--http-thread-count), the main one included. */
  readonly frontEndThreads = new Gauge({
    name: 'infernode_frontend_threads',
    help: 'Threads accepting HTTP and WebSocket connections (--http-thread-count), main included',
    registers: [this.registry],
  });

  /** Trace spans not exported: the export queue was full, or the collector failed or timed out. */
  readonly traceSpansDropped = new Counter({
    name: 'infernode_trace_spans_dropped_total',
    help: 'Trace spans dropped: export queue full, or the OTLP collector refused or did not answer',
    registers: [this.registry],
  });

  /**
   * Front-end threads started to replace one that died (an exception nothing caught): a steady
   * climb is a crash loop, spaced out as the instance workers' restarts are (restart-backoff.ts).
   */
  readonly frontEndRestarts = new Counter({
    name: 'infernode_frontend_restarts_total',
    help: 'Front-end threads started to replace one that died',
    registers: [this.registry],
  });

  /** Inference requests each front-end thread handed to the main thread: the kernel's balance. */
  readonly frontEndThreadRequests = new Counter<'thread'>({
    name: 'infernode_frontend_thread_requests_total',
    help: 'Inference requests each front-end thread (1..N-1; not the main thread) handed over',
    labelNames: ['thread'],
    registers: [this.registry],
  });

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
  forgetModelVersion(model: string, version: number): void {
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

  /** A per-thread gauge, rebuilt from the live threads at each scrape (gone threads drop out). */
  private threadGauge(
    name: string,
    help: string,
    value: (r: ThreadReading) => number | undefined,
  ): Gauge<'thread'> {
    const family: Gauge<'thread'> = new Gauge<'thread'>({
      name,
      help,
      labelNames: ['thread'],
      registers: [this.registry],
      collect: () => {
        family.reset();
        for (const [thread, reading] of this.threads.readings()) {
          const v = value(reading);
          if (v !== undefined) family.set({ thread }, v);
        }
      },
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
