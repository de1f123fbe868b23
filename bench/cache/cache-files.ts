// The response-cache bench's published files, bench/results/response-cache.json (the table) and
// response-cache-memory.json (the memory run), read back for their section of bench/RESULTS.md.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import {
  CACHE_MEMORY_SCHEMA,
  CACHE_SCHEMA,
  responseCacheSection,
  type CacheMemoryResult,
  type CacheResult,
} from './cache-result.js';

export const CACHE_JSON = path.join(RESULTS_DIR, 'response-cache.json');
export const CACHE_MEMORY_JSON = path.join(RESULTS_DIR, 'response-cache-memory.json');

async function readPublished<T extends { schema: string }>(
  file: string,
  schema: string,
): Promise<{ result: T; source: string } | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const result = JSON.parse(text) as T;
  if (result.schema !== schema) {
    throw new Error(`${file}: expected schema ${schema}, got ${String(result.schema)}`);
  }
  return { result, source: path.relative(REPO_ROOT, file) };
}

/** The section, or nothing when neither part has been published. */
export async function renderResponseCache(): Promise<string[]> {
  return responseCacheSection(
    await readPublished<CacheResult>(CACHE_JSON, CACHE_SCHEMA),
    await readPublished<CacheMemoryResult>(CACHE_MEMORY_JSON, CACHE_MEMORY_SCHEMA),
  );
}
