// The one interface every response cache implements: the local LRU (local-cache.ts) and the Redis
// cache shared by replicas (redis-cache.ts). The data plane looks a validated request's key up
// before it enters a scheduler and inserts the answer after a miss has run; implementations never
// see requests, only keys and values.

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
  /**
   * The stored value for exactly this key (matched by the key's SHA-256 digest), or undefined.
   * The local cache answers at once, so its path awaits nothing; a remote one answers with a
   * Promise that never rejects (a failure is a miss, which the cache counts itself).
   */
  lookup(key: CacheKey): V | undefined | Promise<V | undefined>;
  /**
   * Stores `value` (whose own size is `valueBytes`) under `key`. Returns false, storing nothing,
   * when the entry alone is larger than the budget. A remote cache sends the value and returns at
   * once (true); a failed send is counted by the cache, never seen by the request.
   */
  insert(key: CacheKey, value: V, valueBytes: number): boolean;
  /** Entries, bytes, budget and evictions; absent where the store is not ours (Redis reports its own). */
  usage?(): CacheUsage;
  /** Lets go of connections (called once, when the server has stopped). */
  close?(): Promise<void>;
}
