// The response cache flags: Triton's --cache-config and its deprecated spelling.

import { parseCacheConfig } from '../../cache/cache-config.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import type { ServerOptions } from './options-type.js';

export const CACHE_FLAGS = {
  'cache-config': {
    kind: 'string',
    repeat: true,
    help: "<cache>,<key>=<value>: the response cache, as Triton's flag; local,size=<bytes> is one LRU shared by every model with response_cache { enable: true }; redis,host=<h>,port=<p> is a Redis shared by replicas (repeatable; none)",
  },
  'response-cache-byte-size': {
    kind: 'uint',
    help: 'Deprecated (Triton): the same as --cache-config local,size=<bytes>',
  },
} as const satisfies FlagTable;

export function cacheOptions(
  read: FlagReader<keyof typeof CACHE_FLAGS>,
): Pick<ServerOptions, 'cacheConfig'> {
  const oldSize = read.has('response-cache-byte-size');
  if (oldSize) {
    read.warn('--response-cache-byte-size is deprecated; use --cache-config local,size=<bytes>');
  }
  return {
    cacheConfig: parseCacheConfig(
      read.all('cache-config'),
      oldSize ? String(read.uint('response-cache-byte-size', 0)) : undefined,
    ),
  };
}
