// The response cache flags: Triton's --cache-config and its deprecated spelling.

import type { FlagTable } from './flag-spec.js';

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
