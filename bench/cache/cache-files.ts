// The response-cache bench's published files, bench/results/response-cache.json (the table for
// mlp, the model issue 30 names), response-cache-<model>.json (any other model's table) and
// response-cache-memory.json (the memory run), read back for their section of bench/RESULTS.md.

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { RESULTS_DIR } from '../paths.js';
import { readPublished } from '../report/published-file.js';
import {
  CACHE_MEMORY_SCHEMA,
  CACHE_SCHEMA,
  responseCacheSection,
  type CacheMemoryResult,
  type CacheResult,
} from './cache-result.js';

export const CACHE_JSON = path.join(RESULTS_DIR, 'response-cache.json');
export const CACHE_MEMORY_JSON = path.join(RESULTS_DIR, 'response-cache-memory.json');

/** Where a model's table is published: mlp's in response-cache.json, others beside it. */
export function cacheJsonFor(model: string): string {
  return model === 'mlp' ? CACHE_JSON : path.join(RESULTS_DIR, `response-cache-${model}.json`);
}

/** The section, or nothing when nothing has been published: mlp's table first, then the others. */
export async function renderResponseCache(): Promise<string[]> {
  const names = await readdir(RESULTS_DIR).catch(() => [] as string[]);
  const others = names
    .filter((n) => /^response-cache-.+\.json$/.test(n) && n !== path.basename(CACHE_MEMORY_JSON))
    .sort()
    .map((n) => path.join(RESULTS_DIR, n));
  const tables = [];
  for (const file of [CACHE_JSON, ...others]) {
    const table = await readPublished<CacheResult>(file, CACHE_SCHEMA);
    if (table !== null) tables.push(table);
  }
  return responseCacheSection(
    tables,
    await readPublished<CacheMemoryResult>(CACHE_MEMORY_JSON, CACHE_MEMORY_SCHEMA),
  );
}
