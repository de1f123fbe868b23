// The response cache's own families, created only on a server with a cache: its size and evictions
// (`watch`), and a remote cache's failed operations (`errors`). Triton's per-model cache counters
// are model-families.ts's.

import { Counter, Gauge } from 'prom-client';
import { FamilyGroup } from './family-group.js';
import type { CacheUsage } from '../cache/response-cache.js';

export class CacheFamilies extends FamilyGroup {
  /** Whether `watch` created the cache-wide families (once per registry). */
  #watched = false;
  /** infernode_cache_errors_total, created by the first `errors` call (a remote cache's). */
  #errors: Counter<'op'> | undefined;

  /**
   * The response cache's own figures, read at each scrape: entries, bytes held (keys included),
   * the byte budget and evictions. Triton's cache-wide families were dropped from its core when
   * caches became plugins; these are infernode's, created only on a server with a cache.
   */
  watch(read: () => CacheUsage): void {
    if (this.#watched) return;
    this.#watched = true;
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

  /**
   * Failed lookups and inserts of a remote response cache (Redis slow, down or answering what
   * cannot be read), by `op`: each was a miss served by the model, never a failed request. Created
   * only on a server with a Redis cache; both series start at 0.
   */
  errors(): Counter<'op'> {
    if (this.#errors === undefined) {
      this.#errors = new Counter<'op'>({
        name: 'infernode_cache_errors_total',
        help: 'Response cache lookups and inserts that failed (served by the model), by op',
        labelNames: ['op'],
        registers: [this.registry],
      });
      this.#errors.inc({ op: 'lookup' }, 0);
      this.#errors.inc({ op: 'insert' }, 0);
    }
    return this.#errors;
  }
}
