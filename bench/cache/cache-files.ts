// The response-cache bench's published files, bench/results/response-cache.json (the table) and
// response-cache-memory.json (the memory run), read back for their section of bench/RESULTS.md.

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

/** The section, or nothing when neither part has been published. */
export async function renderResponseCache(): Promise<string[]> {
  return responseCacheSection(
    await readPublished<CacheResult>(CACHE_JSON, CACHE_SCHEMA),
    await readPublished<CacheMemoryResult>(CACHE_MEMORY_JSON, CACHE_MEMORY_SCHEMA),
  );
}
