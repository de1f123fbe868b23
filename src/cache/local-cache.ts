// Triton's local response cache: an LRU under one byte budget shared by every model. An entry
// counts its key (the digest's hex string), its value's bytes and a fixed overhead; nothing is held
// above the budget, and an entry larger than the whole budget is never inserted.

import type { CacheKey } from './cache-key.js';
import type { CacheUsage, ResponseCache } from './response-cache.js';

/** Bookkeeping per entry (map slot, strings, object headers), counted so the budget is honest. */
export const ENTRY_OVERHEAD_BYTES = 128;

interface Entry<V> {
  readonly value: V;
  readonly bytes: number;
}

export class LocalCache<V> implements ResponseCache<V> {
  // A Map iterates in insertion order: re-inserting on a hit makes the first entry the least
  // recently used.
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private evictions = 0;

  constructor(private readonly budget: number) {}

  lookup(key: CacheKey): V | undefined {
    const entry = this.entries.get(key.hash);
    if (entry === undefined) return undefined;
    this.entries.delete(key.hash);
    this.entries.set(key.hash, entry);
    return entry.value;
  }

  insert(key: CacheKey, value: V, valueBytes: number): boolean {
    const bytes = key.hash.length + valueBytes + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.budget) return false;
    const old = this.entries.get(key.hash);
    if (old !== undefined) {
      this.entries.delete(key.hash);
      this.bytes -= old.bytes;
    }
    while (this.bytes + bytes > this.budget) {
      const first = this.entries.entries().next();
      if (first.done === true) break;
      const [hash, lru] = first.value;
      this.entries.delete(hash);
      this.bytes -= lru.bytes;
      this.evictions++;
    }
    this.entries.set(key.hash, { value, bytes });
    this.bytes += bytes;
    return true;
  }

  usage(): CacheUsage {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      budget: this.budget,
      evictions: this.evictions,
    };
  }
}
