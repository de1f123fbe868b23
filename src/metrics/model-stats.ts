// Per model-version statistics in the shape of Triton's statistics extension
// (`GET /v2/models[/{m}[/versions/{v}]]/stats`). Durations are cumulative nanoseconds.

export interface DurationStat {
  count: number;
  ns: number;
}

export interface BatchStat {
  readonly batch_size: number;
  readonly compute_input: DurationStat;
  readonly compute_infer: DurationStat;
  readonly compute_output: DurationStat;
}

/** Cumulative counts and durations of one model version's requests, by stage. */
export interface InferenceStats {
  readonly success: DurationStat;
  readonly fail: DurationStat;
  readonly queue: DurationStat;
  readonly compute_input: DurationStat;
  readonly compute_infer: DurationStat;
  readonly compute_output: DurationStat;
  readonly cache_hit: DurationStat;
  readonly cache_miss: DurationStat;
}

/** One model version's entry in the statistics extension's `model_stats` list. */
export interface ModelStatistics {
  readonly name: string;
  readonly version: string;
  readonly last_inference: number;
  readonly inference_count: number;
  readonly execution_count: number;
  readonly inference_stats: InferenceStats;
  /** Per-response statistics (decoupled models): always empty here. */
  readonly response_stats: Readonly<Record<string, never>>;
  readonly batch_stats: readonly BatchStat[];
  /** Memory usage per device: not tracked, always empty. */
  readonly memory_usage: readonly [];
}

const zero = (): DurationStat => ({ count: 0, ns: 0 });

export class ModelStats {
  lastInferenceMs = 0;
  inferenceCount = 0;
  executionCount = 0;
  readonly success = zero();
  readonly fail = zero();
  readonly queue = zero();
  readonly computeInput = zero();
  readonly computeInfer = zero();
  readonly computeOutput = zero();
  readonly cacheHit = zero();
  readonly cacheMiss = zero();
  private readonly batches = new Map<number, BatchStat>();

  constructor(
    readonly name: string,
    readonly version: number,
  ) {}

  /** One model execution of `batchSize` inferences (a dynamic batch counts once). */
  recordExecution(batchSize: number, inputNs: number, inferNs: number, outputNs: number): void {
    this.executionCount += 1;
    this.inferenceCount += batchSize;
    let b = this.batches.get(batchSize);
    if (b === undefined) {
      b = {
        batch_size: batchSize,
        compute_input: zero(),
        compute_infer: zero(),
        compute_output: zero(),
      };
      this.batches.set(batchSize, b);
    }
    add(b.compute_input, inputNs);
    add(b.compute_infer, inferNs);
    add(b.compute_output, outputNs);
  }

  /** A request that completed: its queue time and its share of compute time. */
  recordSuccess(
    totalNs: number,
    queueNs: number,
    inputNs: number,
    inferNs: number,
    outputNs: number,
    nowMs: number,
  ): void {
    add(this.success, totalNs);
    add(this.queue, queueNs);
    add(this.computeInput, inputNs);
    add(this.computeInfer, inferNs);
    add(this.computeOutput, outputNs);
    this.lastInferenceMs = nowMs;
  }

  /**
   * A request answered from the response cache: counted in success and queue (with no queue
   * time: it never entered one), as Triton counts hits, and not in the compute stages or the
   * execution and inference counts; `lookupNs` is the lookup's time.
   */
  recordCacheHit(totalNs: number, lookupNs: number, nowMs: number): void {
    add(this.success, totalNs);
    add(this.queue, 0);
    add(this.cacheHit, lookupNs);
    this.lastInferenceMs = nowMs;
  }

  /** A request the cache did not hold: its lookup and insertion time (the run counts apart). */
  recordCacheMiss(ns: number): void {
    add(this.cacheMiss, ns);
  }

  recordFailure(totalNs: number, nowMs: number): void {
    add(this.fail, totalNs);
    this.lastInferenceMs = nowMs;
  }

  toJson(): ModelStatistics {
    return {
      name: this.name,
      version: String(this.version),
      last_inference: this.lastInferenceMs,
      inference_count: this.inferenceCount,
      execution_count: this.executionCount,
      inference_stats: {
        success: { ...this.success },
        fail: { ...this.fail },
        queue: { ...this.queue },
        compute_input: { ...this.computeInput },
        compute_infer: { ...this.computeInfer },
        compute_output: { ...this.computeOutput },
        cache_hit: { ...this.cacheHit },
        cache_miss: { ...this.cacheMiss },
      },
      response_stats: {},
      batch_stats: [...this.batches.values()]
        .sort((a, b) => a.batch_size - b.batch_size)
        .map((b) => ({
          batch_size: b.batch_size,
          compute_input: { ...b.compute_input },
          compute_infer: { ...b.compute_infer },
          compute_output: { ...b.compute_output },
        })),
      memory_usage: [],
    };
  }
}

function add(s: DurationStat, ns: number): void {
  s.count += 1;
  s.ns += Math.round(ns);
}
