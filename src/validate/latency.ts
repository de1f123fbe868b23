// Latency and throughput of both models at each batch size, measured in one interleaved run: each
// iteration times the serving version and the candidate back to back, alternating which goes
// first, so a noisy neighbour or a CPU frequency change lands on both alike and their ratio stays
// meaningful on a shared CI machine. Runs are one at a time (no concurrency): this measures the
// model, not a server.

import type { ModelConfig } from '../config/model-config.js';
import { generateFeeds, seededRandom } from './generated-inputs.js';
import type { ModelSession } from './model-session.js';

/** Untimed runs per model before timing starts (session caches and arenas warm up). */
const WARMUP_RUNS = 3;

export interface LatencyStats {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** Rows per second over the timed runs. */
  readonly throughput: number;
}

export interface BatchLatency {
  readonly batchSize: number;
  readonly iterations: number;
  readonly serving: LatencyStats;
  readonly candidate: LatencyStats;
  readonly p50Ratio: number;
  readonly p99Ratio: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export function stats(ms: readonly number[], rows: number): LatencyStats {
  const sorted = [...ms].sort((a, b) => a - b);
  const total = ms.reduce((a, b) => a + b, 0);
  return {
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: total / ms.length,
    throughput: total === 0 ? Infinity : (rows * ms.length * 1000) / total,
  };
}

/** The batch sizes timed: as asked (capped at max_batch_size), else 1 and min(8, max_batch_size). */
export function batchSizesFor(config: ModelConfig, asked: readonly number[] | undefined): number[] {
  if (config.max_batch_size <= 0) return [1];
  const wanted = asked ?? [1, Math.min(8, config.max_batch_size)];
  return [...new Set(wanted.map((b) => Math.min(b, config.max_batch_size)))].sort((a, b) => a - b);
}

export async function measureLatency(
  config: ModelConfig,
  serving: ModelSession,
  candidate: ModelSession,
  options: {
    readonly batchSizes: readonly number[];
    readonly iterations: number;
    readonly seed: number;
  },
): Promise<BatchLatency[]> {
  const outputs = config.output.map((t) => t.name);
  const out: BatchLatency[] = [];
  for (const batchSize of options.batchSizes) {
    const feeds = generateFeeds(config, batchSize, seededRandom(options.seed + batchSize));
    for (let i = 0; i < WARMUP_RUNS; i++) {
      await serving.run(feeds, outputs);
      await candidate.run(feeds, outputs);
    }
    const times = { serving: [] as number[], candidate: [] as number[] };
    const timeOne = async (which: 'serving' | 'candidate'): Promise<void> => {
      const session = which === 'serving' ? serving : candidate;
      const start = process.hrtime.bigint();
      await session.run(feeds, outputs);
      times[which].push(Number(process.hrtime.bigint() - start) / 1e6);
    };
    for (let i = 0; i < options.iterations; i++) {
      const first = i % 2 === 0 ? 'serving' : 'candidate';
      await timeOne(first);
      await timeOne(first === 'serving' ? 'candidate' : 'serving');
    }
    const rows = config.max_batch_size > 0 ? batchSize : 1;
    const s = stats(times.serving, rows);
    const c = stats(times.candidate, rows);
    out.push({
      batchSize,
      iterations: options.iterations,
      serving: s,
      candidate: c,
      p50Ratio: c.p50Ms / s.p50Ms,
      p99Ratio: c.p99Ms / s.p99Ms,
    });
  }
  return out;
}
