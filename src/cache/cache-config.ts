// `--cache-config` as Triton spells it: `<cache>,<key>=<value>`, repeatable, one setting per flag
// or several (`local,size=1048576`, or `redis,host=h` then `redis,port=6379`); one cache per
// server. Triton's deprecated `--response-cache-byte-size N` is `local,size=N`. Parsed once,
// frozen; the Redis cache's keys are read by redis-config.ts.

import { fail } from '../errors.js';
import { parseRedisConfig, type RedisCacheConfig } from './redis-config.js';

export interface LocalCacheConfig {
  readonly kind: 'local';
  /** The byte budget shared by every model. */
  readonly size: number;
}

export type CacheConfig = LocalCacheConfig | RedisCacheConfig;

/** Settings by cache name, in the order given; later values of a key replace earlier ones. */
function settings(values: readonly string[]): Map<string, Map<string, string>> {
  const byCache = new Map<string, Map<string, string>>();
  for (const value of values) {
    const [cache, ...pairs] = value.split(',');
    if (cache === undefined || cache === '' || pairs.length === 0) {
      throw fail(
        'BAD_REQUEST',
        `--cache-config: expected <cache>,<key>=<value>, got '${value.slice(0, 200)}'`,
      );
    }
    const keys = byCache.get(cache) ?? new Map<string, string>();
    byCache.set(cache, keys);
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      if (eq <= 0) {
        throw fail(
          'BAD_REQUEST',
          `--cache-config: expected <key>=<value> after '${cache},', got '${pair.slice(0, 200)}'`,
        );
      }
      keys.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
  return byCache;
}

/**
 * The server's cache from its `--cache-config` values and `--response-cache-byte-size` (undefined
 * when neither is given: no cache, and a model that enables one is refused at load).
 */
export function parseCacheConfig(
  values: readonly string[],
  responseCacheByteSize?: string,
): CacheConfig | undefined {
  const all = [...values];
  if (responseCacheByteSize !== undefined) all.push(`local,size=${responseCacheByteSize}`);
  if (all.length === 0) return undefined;
  const byCache = settings(all);
  if (byCache.size > 1) {
    throw fail(
      'BAD_REQUEST',
      `--cache-config: one cache per server, got ${[...byCache.keys()].join(' and ')}`,
    );
  }
  const [[cache, keys]] = [...byCache] as [[string, Map<string, string>]];
  if (cache === 'redis') return parseRedisConfig(keys);
  if (cache !== 'local') {
    throw fail(
      'BAD_REQUEST',
      `--cache-config: unknown cache '${cache.slice(0, 100)}' (supported: local, redis)`,
    );
  }
  for (const key of keys.keys()) {
    if (key !== 'size') {
      throw fail(
        'BAD_REQUEST',
        `--cache-config: local cache has no setting '${key.slice(0, 100)}' (size)`,
      );
    }
  }
  const size = keys.get('size');
  if (size === undefined)
    throw fail('BAD_REQUEST', '--cache-config: local cache needs size=<bytes>');
  if (!/^[0-9]{1,16}$/.test(size) || !Number.isSafeInteger(Number(size))) {
    throw fail(
      'BAD_REQUEST',
      `--cache-config: local size: expected bytes as an integer, got '${size.slice(0, 100)}'`,
    );
  }
  return Object.freeze({ kind: 'local', size: Number(size) });
}
