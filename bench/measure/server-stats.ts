// The server-side breakdown of a window, from Triton's statistics extension
// (`GET /v2/models/{m}[/versions/{v}]/stats`, or the gRPC `ModelStatistics`) read before and after
// it: cumulative counters are subtracted, so the figures cover exactly the requests the server
// finished inside the window. The response cache's `cache_hit` / `cache_miss` come along, as
// perf_analyzer reads them (a hit counts in `success` and `queue` but in no `compute_*`).

import { status } from '@grpc/grpc-js';
import { describeGrpcError, type GrpcServiceClient } from '../model/grpc-service.js';
import { modelPath } from '../model/kserve-paths.js';

export interface ServerCounters {
  readonly successCount: number;
  readonly successNs: number;
  readonly queueCount: number;
  readonly queueNs: number;
  readonly computeInputCount: number;
  readonly computeInputNs: number;
  readonly computeInferCount: number;
  readonly computeInferNs: number;
  readonly computeOutputCount: number;
  readonly computeOutputNs: number;
  readonly failCount: number;
  readonly inferenceCount: number;
  readonly executionCount: number;
  /** Requests answered from the response cache, and the time their lookups took. */
  readonly cacheHitCount: number;
  readonly cacheHitNs: number;
  /** Requests the cache missed (run, then inserted), and the lookup plus insertion time. */
  readonly cacheMissCount: number;
  readonly cacheMissNs: number;
}

/** Per-request averages in µs, as perf_analyzer prints its server-side section. */
export interface ServerBreakdown {
  readonly requests: number;
  readonly inferences: number;
  readonly executions: number;
  /** inferences / executions: how much the scheduler batched. */
  readonly avgBatchSize: number;
  readonly avgRequestUs: number;
  readonly avgQueueUs: number;
  readonly avgComputeInputUs: number;
  readonly avgComputeInferUs: number;
  readonly avgComputeOutputUs: number;
  /** Request time not accounted for by queue + compute (scheduling, copies, response). */
  readonly avgOverheadUs: number;
  readonly failures: number;
  /**
   * perf_analyzer's "Cache hit count" / "Cache hit latency" and the miss pair (average µs per
   * lookup); zero without a response cache. Absent from results written before the cache.
   */
  readonly cacheHits?: number;
  readonly avgCacheHitUs?: number;
  readonly cacheMisses?: number;
  readonly avgCacheMissUs?: number;
}

interface DurationJson {
  count?: unknown;
  ns?: unknown;
}
interface ModelStatsJson {
  name?: unknown;
  version?: unknown;
  inference_count?: unknown;
  execution_count?: unknown;
  inference_stats?: Record<string, DurationJson | undefined>;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Extracts one model version's counters from a stats response body; throws if it is absent. */
export function parseServerCounters(body: unknown, model: string, version: string): ServerCounters {
  const list = (body as { model_stats?: unknown } | null)?.model_stats;
  if (!Array.isArray(list)) {
    throw new Error(
      `stats response has no model_stats array: ${JSON.stringify(body).slice(0, 200)}`,
    );
  }
  const entries = (list as ModelStatsJson[]).filter(
    (m) => m.name === model && (version === '' || m.version === version),
  );
  const m = entries[0];
  if (m === undefined) {
    throw new Error(`stats response has no entry for model "${model}" version "${version || '*'}"`);
  }
  const s = m.inference_stats ?? {};
  return {
    successCount: num(s.success?.count),
    successNs: num(s.success?.ns),
    queueCount: num(s.queue?.count),
    queueNs: num(s.queue?.ns),
    computeInputCount: num(s.compute_input?.count),
    computeInputNs: num(s.compute_input?.ns),
    computeInferCount: num(s.compute_infer?.count),
    computeInferNs: num(s.compute_infer?.ns),
    computeOutputCount: num(s.compute_output?.count),
    computeOutputNs: num(s.compute_output?.ns),
    failCount: num(s.fail?.count),
    inferenceCount: num(m.inference_count),
    executionCount: num(m.execution_count),
    cacheHitCount: num(s.cache_hit?.count),
    cacheHitNs: num(s.cache_hit?.ns),
    cacheMissCount: num(s.cache_miss?.count),
    cacheMissNs: num(s.cache_miss?.ns),
  };
}

export function subtractCounters(after: ServerCounters, before: ServerCounters): ServerCounters {
  const out: Record<string, number> = {};
  for (const key of Object.keys(after) as (keyof ServerCounters)[]) {
    out[key] = after[key] - before[key];
  }
  return out as unknown as ServerCounters;
}

export function addCounters(a: ServerCounters, b: ServerCounters): ServerCounters {
  const out: Record<string, number> = {};
  for (const key of Object.keys(a) as (keyof ServerCounters)[]) out[key] = a[key] + b[key];
  return out as unknown as ServerCounters;
}

export function breakdown(c: ServerCounters): ServerBreakdown {
  // Each average divides by its own count, as perf_analyzer's report writer does.
  const avg = (ns: number, count: number): number => (count > 0 ? ns / count / 1000 : 0);
  const queue = avg(c.queueNs, c.queueCount);
  const input = avg(c.computeInputNs, c.computeInputCount);
  const infer = avg(c.computeInferNs, c.computeInferCount);
  const output = avg(c.computeOutputNs, c.computeOutputCount);
  const request = avg(c.successNs, c.successCount);
  return {
    requests: c.successCount,
    inferences: c.inferenceCount,
    executions: c.executionCount,
    avgBatchSize: c.executionCount > 0 ? c.inferenceCount / c.executionCount : 0,
    avgRequestUs: request,
    avgQueueUs: queue,
    avgComputeInputUs: input,
    avgComputeInferUs: infer,
    avgComputeOutputUs: output,
    avgOverheadUs: Math.max(0, request - queue - input - infer - output),
    failures: c.failCount,
    cacheHits: c.cacheHitCount,
    avgCacheHitUs: avg(c.cacheHitNs, c.cacheHitCount),
    cacheMisses: c.cacheMissCount,
    avgCacheMissUs: avg(c.cacheMissNs, c.cacheMissCount),
  };
}

/** Reads the counters over HTTP; `null` when the server has no statistics extension (404/501). */
export async function fetchServerCounters(
  base: string,
  model: string,
  version: string,
): Promise<ServerCounters | null> {
  const path = modelPath(model, version, 'stats');
  const res = await fetch(base + path);
  if (res.status === 404 || res.status === 501) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}: ${await res.text()}`);
  return parseServerCounters(await res.json(), model, version);
}

/**
 * The same counters from Triton's gRPC `ModelStatistics` (whose message has the JSON's field
 * names); `null` when the server does not implement it.
 */
export async function fetchGrpcServerCounters(
  client: GrpcServiceClient,
  model: string,
  version: string,
): Promise<ServerCounters | null> {
  let reply: unknown;
  try {
    reply = await client.call('ModelStatistics', { name: model, version });
  } catch (e) {
    if ((e as { code?: unknown }).code === status.UNIMPLEMENTED) return null;
    throw new Error(`ModelStatistics: ${describeGrpcError(e)}`);
  }
  return parseServerCounters(reply, model, version);
}

/**
 * Several servers' counters added up (an N-process reference: one model served by N processes);
 * null when any of them has no statistics extension.
 */
export async function summedCounters(
  reads: readonly (() => Promise<ServerCounters | null>)[],
): Promise<ServerCounters | null> {
  const all = await Promise.all(reads.map((read) => read()));
  const first = all[0];
  if (first === undefined || first === null || all.some((c) => c === null)) return null;
  return (all as ServerCounters[]).slice(1).reduce(addCounters, first);
}
