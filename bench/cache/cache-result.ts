// The response-cache bench's results (`infernode-bench cache`): the table of throughput and
// p50/p99 per cache, hit ratio and concurrency, with issue 30's two latency and throughput
// targets computed from it (reported, not asserted); and the memory run's RSS samples under a
// small budget. Both render into one section of bench/RESULTS.md.

import type { MachineInfo } from '../measure/machine-info.js';
import { commitLineOf, machineLineOf } from '../report/run-summary.js';
import { alignColumns, markdownTable } from '../report/tables.js';

export const CACHE_SCHEMA = 'infernode-bench-response-cache/1';
export const CACHE_MEMORY_SCHEMA = 'infernode-bench-response-cache-memory/1';

/** `none` is the server without --cache-config (its model without response_cache). */
export interface CacheRow {
  /** 'none', or the --cache-config value the server ran with. */
  readonly cache: string;
  /** The --cache-hit-ratio the client sent. */
  readonly hitRatio: number;
  readonly concurrency: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly stable: boolean;
  /** The server's own counts over the level's windows (0 and 0 without a cache). */
  readonly serverHits: number;
  readonly serverMisses: number;
  readonly avgHitUs: number;
  readonly avgMissUs: number;
  /**
   * The server process's CPU time per request (all its threads), µs: what bounds throughput once
   * the server's cores are busy. Absent in files written before it was recorded.
   */
  readonly serverCpuUsPerReq?: number | null;
}

export interface CacheResult {
  readonly schema: typeof CACHE_SCHEMA;
  readonly startedAt: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly model: string;
  readonly transport: string;
  readonly rows: readonly CacheRow[];
}

export interface MemorySample {
  /** Seconds since the load started. */
  readonly t: number;
  readonly rssBytes: number;
  /** infernode_cache_bytes and infernode_cache_evictions from /metrics. */
  readonly cacheBytes: number;
  readonly evictions: number;
}

export interface CacheMemoryResult {
  readonly schema: typeof CACHE_MEMORY_SCHEMA;
  readonly startedAt: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly model: string;
  readonly cacheConfig: string;
  readonly budgetBytes: number;
  /** In flight, when the load was a closed loop (no `rate`). */
  readonly concurrency: number;
  /** Requests/s of an open-loop load. */
  readonly rate?: number;
  readonly seconds: number;
  readonly requests: number;
  readonly errors: number;
  readonly samples: readonly MemorySample[];
  /**
   * The load's 10-second windows (seconds since the load started, req/s): RSS can grow with the
   * request rate (more in flight, more garbage between collections) as well as with the cache.
   */
  readonly windows?: readonly { readonly t: number; readonly reqPerSec: number }[];
}

/** What the memory run shows: RSS over the first and the last 30 s once the cache is full. */
export interface MemoryVerdict {
  /** Seconds into the run when the first eviction was seen (null: never full). */
  readonly fullAtS: number | null;
  readonly firstMeanBytes: number;
  readonly lastMeanBytes: number;
  readonly maxCacheBytes: number;
  /** Mean req/s of the windows in the same two spans (null without windows). */
  readonly firstReqPerSec: number | null;
  readonly lastReqPerSec: number | null;
  /** Last 30 s mean within 5 % of the first 30 s mean after the cache filled. */
  readonly flat: boolean;
}

const SPAN_S = 30;
const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

export function memoryVerdict(r: CacheMemoryResult): MemoryVerdict {
  const full = r.samples.find((s) => s.evictions > 0);
  const fullAtS = full?.t ?? null;
  const from = fullAtS ?? 0;
  const end = r.samples.at(-1)?.t ?? 0;
  const first = r.samples.filter((s) => s.t >= from && s.t < from + SPAN_S);
  const last = r.samples.filter((s) => s.t > end - SPAN_S);
  const firstMeanBytes = mean(first.map((s) => s.rssBytes));
  const lastMeanBytes = mean(last.map((s) => s.rssBytes));
  const rate = (keep: (t: number) => boolean): number | null =>
    r.windows === undefined
      ? null
      : mean(r.windows.filter((w) => keep(w.t)).map((w) => w.reqPerSec));
  return {
    fullAtS,
    firstMeanBytes,
    lastMeanBytes,
    maxCacheBytes: Math.max(0, ...r.samples.map((s) => s.cacheBytes)),
    firstReqPerSec: rate((t) => t >= from && t < from + SPAN_S),
    lastReqPerSec: rate((t) => t > end - SPAN_S - 10),
    flat: fullAtS !== null && lastMeanBytes <= firstMeanBytes * 1.05,
  };
}

const ms = (x: number): string => x.toFixed(2);
const mib = (b: number): string => `${(b / 1048576).toFixed(1)} MiB`;
const pct = (x: number): string => `${Math.round(x * 100)} %`;
const kindOf = (cache: string): string => cache.split(',')[0] ?? cache;

function find(r: CacheResult, cache: string, ratio: number, c: number): CacheRow | undefined {
  return r.rows.find((x) => x.cache === cache && x.hitRatio === ratio && x.concurrency === c);
}

/** Issue 30's targets for one cache, from the rows (null where a row is missing). */
export function cacheTargets(
  r: CacheResult,
  cache: string,
): { hitOverMissP50: number | null; throughputOverUncached: number | null } {
  const hit = find(r, cache, 0.9, 1);
  const miss = find(r, cache, 0, 1);
  const cached = find(r, cache, 0.9, 64);
  const uncached = find(r, 'none', 0.9, 64);
  return {
    hitOverMissP50: hit === undefined || miss === undefined ? null : hit.p50Ms / miss.p50Ms,
    throughputOverUncached:
      cached === undefined || uncached === undefined ? null : cached.reqPerSec / uncached.reqPerSec,
  };
}

function tableSection(r: CacheResult, source: string): string[] {
  const rows = r.rows.map((x) => [
    x.cache === 'none' ? 'none' : kindOf(x.cache),
    pct(x.hitRatio),
    String(x.concurrency),
    `${x.reqPerSec.toFixed(0)}${x.stable ? '' : '*'}`,
    ms(x.p50Ms),
    ms(x.p99Ms),
    x.serverHits + x.serverMisses === 0 ? '–' : pct(x.serverHits / (x.serverHits + x.serverMisses)),
    x.serverHits === 0 ? '–' : `${Math.round(x.avgHitUs)} / ${Math.round(x.avgMissUs)}`,
    x.serverCpuUsPerReq === undefined || x.serverCpuUsPerReq === null
      ? '–'
      : x.serverCpuUsPerReq.toFixed(0),
    String(x.errors),
  ]);
  const targets = [...new Set(r.rows.map((x) => x.cache))]
    .filter((c) => c !== 'none')
    .map((c) => {
      const t = cacheTargets(r, c);
      const p50 =
        t.hitOverMissP50 === null
          ? 'not measured'
          : `${t.hitOverMissP50.toFixed(2)}× (target ≤ 0.5×: ${t.hitOverMissP50 <= 0.5 ? 'met' : 'missed'})`;
      const tput =
        t.throughputOverUncached === null
          ? 'not measured'
          : `${t.throughputOverUncached.toFixed(2)}× (target ≥ 2×: ${t.throughputOverUncached >= 2 ? 'met' : 'missed'})`;
      return (
        `- \`${c}\`: p50 at 1 in flight, 90 % hits over 0 % hits: ${p50}; ` +
        `throughput at 64 in flight and 90 % hits over the uncached server's: ${tput}.`
      );
    });
  return [
    `${machineLineOf(r.machine)}; ${commitLineOf(r.machine)}. \`${r.command}\` (${r.model}, ` +
      `${r.transport}, client and server on the same cores), from ` +
      `[${source}](${source.replace(/^bench\//, '')}).`,
    '',
    'Each row is a fresh server: `none` without a cache (the model without `response_cache`), ' +
      'else with that `--cache-config`. The client repeats that share of inputs ' +
      '(`--cache-hit-ratio`); "server hits" is the share the server counted (a repeat of a ' +
      'request still in flight misses), with its average lookup µs for a hit / a miss. ' +
      '"server CPU" is the server process\'s CPU time per request, all threads (µs). ' +
      '`*`: not stable within the windows allowed.',
    '',
    markdownTable({
      headers: [
        'cache',
        'hits sent',
        'in flight',
        'req/s',
        'p50 ms',
        'p99 ms',
        'server hits',
        'hit / miss µs',
        'server CPU µs/req',
        'errors',
      ],
      rows,
      align: alignColumns(10, [0]),
    }),
    '',
    "Issue 30's targets (reported, not asserted):",
    '',
    ...targets,
    '',
  ];
}

function memorySection(r: CacheMemoryResult, source: string): string[] {
  const v = memoryVerdict(r);
  return [
    `Memory: \`${r.command}\` — ${r.model} at ` +
      `${r.rate !== undefined ? `${r.rate} requests/s` : `${r.concurrency} in flight`} for ${r.seconds} s, ` +
      `every input fresh, against \`--cache-config ${r.cacheConfig}\` ` +
      `(${r.requests} requests, ${r.errors} errors; ${machineLineOf(r.machine)}), from ` +
      `[${source}](${source.replace(/^bench\//, '')}).`,
    '',
    markdownTable({
      headers: [
        'cache full at',
        'cache bytes max',
        'RSS first 30 s full',
        'RSS last 30 s',
        'req/s then / last',
        'flat',
      ],
      rows: [
        [
          v.fullAtS === null ? 'never' : `${v.fullAtS} s`,
          `${v.maxCacheBytes} of ${r.budgetBytes}`,
          mib(v.firstMeanBytes),
          mib(v.lastMeanBytes),
          v.firstReqPerSec === null || v.lastReqPerSec === null
            ? '–'
            : `${v.firstReqPerSec.toFixed(0)} / ${v.lastReqPerSec.toFixed(0)}`,
          v.flat ? 'yes (within 5 %)' : 'no',
        ],
      ],
      align: ['right', 'right', 'right', 'right', 'right', 'left'],
    }),
    '',
  ];
}

/** The section: each model's table as published, then the memory run when published. */
export function responseCacheSection(
  tables: readonly { result: CacheResult; source: string }[],
  memory: { result: CacheMemoryResult; source: string } | null,
): string[] {
  if (tables.length === 0 && memory === null) return [];
  return [
    '## Response cache: throughput and latency by hit ratio',
    '',
    ...tables.flatMap((t) => [`### ${t.result.model}`, '', ...tableSection(t.result, t.source)]),
    ...(memory === null ? [] : memorySection(memory.result, memory.source)),
  ];
}
