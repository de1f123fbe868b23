// The shadow-overhead bench's published file, bench/results/shadow-overhead.json, read back for its
// section of bench/RESULTS.md.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import { SHADOW_SCHEMA, shadowSection, type ShadowResult } from './shadow-result.js';

export const SHADOW_JSON = path.join(RESULTS_DIR, 'shadow-overhead.json');

/** The section, or nothing when the bench has not been published. */
export async function renderShadowOverhead(): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(SHADOW_JSON, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const result = JSON.parse(text) as ShadowResult;
  if (result.schema !== SHADOW_SCHEMA) {
    throw new Error(
      `${SHADOW_JSON}: expected schema ${SHADOW_SCHEMA}, got ${String(result.schema)}`,
    );
  }
  return shadowSection(result, path.relative(REPO_ROOT, SHADOW_JSON));
}
