// The one metrics catalog: every Prometheus family infernode exports, on one registry, with Triton's
// names and labels. Callers use this class only; the families live in one file per group: per model
// version (model-families.ts, with the hot-path tallies of version-series.ts that model-reporter.ts
// binds once per version), the server process's own (process-families.ts), the response cache's
// (cache-families.ts) and the GPUs' (gpu-families.ts).

import { type Counter, Registry } from 'prom-client';
import type { CacheUsage } from '../cache/response-cache.js';
import { CacheFamilies } from './cache-families.js';
import { GpuFamilies } from './gpu-families.js';
import type { GpuReading } from './gpu-sample.js';
import { ModelFamilies } from './model-families.js';
import { ProcessFamilies } from './process-families.js';
import type { VersionSeries } from './version-series.js';

export {
  BATCH_SIZE_BUCKETS,
  type FailureReason,
  LATENCY_BUCKETS_SECONDS,
  VersionSeries,
} from './version-series.js';

export class MetricsCatalog {
  readonly registry = new Registry();
  // Created in this order, the order of /metrics; the cache's, host CPU's and GPUs' families are
  // registered when the server first watches them.
  readonly #models = new ModelFamilies(this.registry);
  readonly #process = new ProcessFamilies(this.registry);
  readonly #cache = new CacheFamilies(this.registry);
  readonly #gpus = new GpuFamilies(this.registry);

  // Per model version (model-families.ts).
  readonly requestSuccess = this.#models.requestSuccess;
  readonly requestFailure = this.#models.requestFailure;
  readonly inferenceCount = this.#models.inferenceCount;
  readonly execCount = this.#models.execCount;
  readonly pendingRequests = this.#models.pendingRequests;
  readonly requestDurationUs = this.#models.requestDurationUs;
  readonly queueDurationUs = this.#models.queueDurationUs;
  readonly computeInputDurationUs = this.#models.computeInputDurationUs;
  readonly computeInferDurationUs = this.#models.computeInferDurationUs;
  readonly computeOutputDurationUs = this.#models.computeOutputDurationUs;
  readonly cacheHitCount = this.#models.cacheHitCount;
  readonly cacheMissCount = this.#models.cacheMissCount;
  readonly cacheHitDurationUs = this.#models.cacheHitDurationUs;
  readonly cacheMissDurationUs = this.#models.cacheMissDurationUs;
  readonly loadDurationSecs = this.#models.loadDurationSecs;
  readonly requestLatency = this.#models.requestLatency;
  readonly queueLatency = this.#models.queueLatency;
  readonly computeLatency = this.#models.computeLatency;
  readonly batchSize = this.#models.batchSize;
  readonly instanceRestarts = this.#models.instanceRestarts;
  readonly sequencesLive = this.#models.sequencesLive;
  readonly sequenceSlotsInUse = this.#models.sequenceSlotsInUse;
  readonly sequenceSlots = this.#models.sequenceSlots;
  readonly sequenceBacklog = this.#models.sequenceBacklog;
  readonly sequencesIdleReleased = this.#models.sequencesIdleReleased;

  // The server process's own (process-families.ts).
  readonly clientMemoryReserved = this.#process.clientMemoryReserved;
  /** Every live thread's readings and the host's, taken each --metrics-interval-ms. */
  readonly threads = this.#process.threads;
  readonly threadUtilization = this.#process.threadUtilization;
  readonly threadDelay = this.#process.threadDelay;
  readonly threadHeap = this.#process.threadHeap;
  readonly residentMemory = this.#process.residentMemory;
  readonly frontEndThreads = this.#process.frontEndThreads;
  readonly traceSpansDropped = this.#process.traceSpansDropped;
  readonly frontEndRestarts = this.#process.frontEndRestarts;
  readonly frontEndThreadRequests = this.#process.frontEndThreadRequests;

  /** The version's hot-path series, created on first use and shared until it is forgotten. */
  series(model: string, version: number): VersionSeries {
    return this.#models.series(model, version);
  }

  /** Drops every series of a model version that no longer serves (unloaded, or not reloaded). */
  forgetModelVersion(model: string, version: number): void {
    this.#models.forget(model, version);
  }

  /** Makes infernode_client_memory_reserved_bytes report `read()`. */
  watchClientMemory(read: () => number): void {
    this.#process.watchClientMemory(read);
  }

  /** Creates Triton's host CPU families (--allow-cpu-metrics), once. */
  watchCpu(): void {
    this.#process.watchCpu();
  }

  /** Creates the response cache's families, reading `read()` at each scrape, once. */
  watchCache(read: () => CacheUsage): void {
    this.#cache.watch(read);
  }

  /** infernode_cache_errors_total (a remote cache's), created by the first call. */
  cacheErrors(): Counter<'op'> {
    return this.#cache.errors();
  }

  /** Creates Triton's GPU families, reading `read()` at each scrape, once. */
  watchGpus(read: () => readonly GpuReading[]): void {
    this.#gpus.watch(read);
  }
}
