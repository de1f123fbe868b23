// Which restricted-API category (--http-restricted-api) an HTTP request path belongs to, as
// Triton's http_server.cc assigns them. A new route must be given its category here: a path this
// returns nothing for is never restricted.

import type { RestrictedCategory } from '../protocol/restricted-features.js';

// The per-model endpoints, with the routes' grammar (numeric versions only), so that a path the
// routes answer 404 is not classified either; `trace` covers Triton's .../trace/setting.
const MODEL_ENDPOINT =
  /^\/v2\/models\/[^/]+(?:\/versions\/[0-9]+)?(?:\/(infer|ready|config|stats)|\/(trace)(?:\/.*)?)?$/;

const MODEL_KIND = Object.freeze({
  infer: 'inference',
  ready: 'health',
  config: 'model-config',
  stats: 'statistics',
  trace: 'trace',
} as const satisfies Record<string, RestrictedCategory>);

// Whole families by prefix: every path under them, served or not, belongs to the category. A
// request there without the header is refused before it could learn which paths exist, and a
// route added under a prefix (repository load/unload) is covered the day it lands.
const PREFIXES: readonly (readonly [string, RestrictedCategory])[] = [
  ['/v2/health', 'health'],
  ['/v2/repository', 'model-repository'],
  ['/v2/systemsharedmemory', 'shared-memory'],
  ['/v2/cudasharedmemory', 'shared-memory'],
  ['/v2/trace', 'trace'],
  ['/v2/logging', 'logging'],
];

/** The category of `path` (without its query), or undefined for a path outside every category. */
export function apiCategory(path: string): RestrictedCategory | undefined {
  if (path === '/v2' || path === '/v2/') return 'metadata';
  // Before the model pattern, which would read "stats" as a model name.
  if (path === '/v2/models/stats') return 'statistics';
  for (const [prefix, category] of PREFIXES) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return category;
  }
  const m = MODEL_ENDPOINT.exec(path);
  if (m === null) return undefined;
  const kind = (m[1] ?? m[2]) as keyof typeof MODEL_KIND | undefined;
  return kind === undefined ? 'metadata' : MODEL_KIND[kind];
}
