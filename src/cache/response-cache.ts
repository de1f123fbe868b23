// The one interface every response cache implements (the local LRU here; a Redis cache later, as a
// second file). The data plane looks a validated request's key up before it enters a scheduler and
// inserts the answer after a miss has run; implementations never see requests, only keys and values.

import type { CacheKey } from './cache-key.js';

/** What a cache reports for Triton's cache-wide metrics. */
export interface CacheUsage {
  /** Entries held now. */
  readonly entries: number;
  /** Bytes held now, keys included. */
  readonly bytes: number;
  /** The byte budget; `bytes` never exceeds it. */
  readonly budget: number;
  /** Entries evicted to make room, since start. */
  readonly evictions: number;
}

export interface ResponseCache<V> {
  /** The stored value for exactly this key (full key compared, never the hash alone), or undefined. */
  lookup(key: CacheKey): V | undefined;
  /**
   * Stores `value` (whose own size is `valueBytes`) under `key`. Returns false, storing nothing,
   * when the entry alone is larger than the budget.
   */
  insert(key: CacheKey, value: V, valueBytes: number): boolean;
  usage(): CacheUsage;
}
