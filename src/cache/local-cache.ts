// Triton's local response cache: an LRU under one byte budget shared by every model. An entry
// counts its key (the digest's hex string), its value's bytes and a fixed overhead; nothing is held
// above the budget, and an entry larger than the whole budget is never inserted.

import type { CacheKey } from './cache-key.js';
import type { CacheUsage, ResponseCache } from './response-cache.js';

/** Bookkeeping per entry (map slot, strings, list links, object headers), counted in the budget. */
export const ENTRY_OVERHEAD_BYTES = 128;

interface Entry<V> {
  readonly hash: string;
  readonly value: V;
  readonly bytes: number;
  older: Entry<V> | undefined;
  newer: Entry<V> | undefined;
}

export class LocalCache<V> implements ResponseCache<V> {
  // Recency is a doubly linked list (oldest first), not the Map's insertion order: evicting the
  // Map's first entry walks over every slot deleted since its last rehash, which made each miss
  // that evicts cost time growing with the entry count.
  private readonly entries = new Map<string, Entry<V>>();
  private oldest: Entry<V> | undefined;
  private newest: Entry<V> | undefined;
  private bytes = 0;
  private evictions = 0;

  constructor(private readonly budget: number) {}

  lookup(key: CacheKey): V | undefined {
    const entry = this.entries.get(key.hash);
    if (entry === undefined) return undefined;
    if (entry !== this.newest) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry.value;
  }

  insert(key: CacheKey, value: V, valueBytes: number): boolean {
    const bytes = key.hash.length + valueBytes + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.budget) return false;
    const old = this.entries.get(key.hash);
    if (old !== undefined) this.remove(old);
    while (this.bytes + bytes > this.budget && this.oldest !== undefined) {
      this.remove(this.oldest);
      this.evictions++;
    }
    const entry: Entry<V> = { hash: key.hash, value, bytes, older: undefined, newer: undefined };
    this.entries.set(key.hash, entry);
    this.append(entry);
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

  private remove(entry: Entry<V>): void {
    this.entries.delete(entry.hash);
    this.unlink(entry);
    this.bytes -= entry.bytes;
  }

  private append(entry: Entry<V>): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest === undefined) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
  }

  private unlink(entry: Entry<V>): void {
    if (entry.older === undefined) this.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }
}
