// The server's response-cache figures of a level, in perf_analyzer's words ("Cache hit count",
// "Cache hit latency", "Cache miss count", "Cache miss latency"; latencies are the average per
// lookup in usec), from the statistics deltas of the level's windows. Nothing for a level whose
// server counted neither hits nor misses (no cache, or a model without response_cache).

import type { ServerBreakdown } from '../measure/server-stats.js';
import { levelName } from './format.js';
import type { TargetResult } from './result-types.js';

/** The level's cache figures on one line, or null when the server counted none. */
export function cacheStatsLine(server: ServerBreakdown | null): string | null {
  const hits = server?.cacheHits ?? 0;
  const misses = server?.cacheMisses ?? 0;
  if (server === null || hits + misses === 0) return null;
  const us = (x: number | undefined): string => `${Math.round(x ?? 0)} usec`;
  return (
    `Cache hit count: ${hits}, Cache hit latency: ${us(server.avgCacheHitUs)}, ` +
    `Cache miss count: ${misses}, Cache miss latency: ${us(server.avgCacheMissUs)} ` +
    `(hits ${((100 * hits) / (hits + misses)).toFixed(1)} %)`
  );
}

/** One line per level that saw the cache, labelled with the level. */
export function cacheStatsLines(t: TargetResult): string[] {
  return t.levels.flatMap((l) => {
    const line = cacheStatsLine(l.summary.server);
    return line === null ? [] : [`  ${levelName(l.mode, l.value)}: ${line}`];
  });
}
