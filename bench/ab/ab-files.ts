// The per-request A/B bench's published file, bench/results/per-request-ab.json, read back for its
// section of bench/RESULTS.md.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import { AB_SCHEMA, abSection, type AbResult } from './ab-result.js';

export const AB_JSON = path.join(RESULTS_DIR, 'per-request-ab.json');

/** The section, or nothing when the bench has not been published. */
export async function renderPerRequestAb(): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(AB_JSON, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const result = JSON.parse(text) as AbResult;
  if (result.schema !== AB_SCHEMA) {
    throw new Error(`${AB_JSON}: expected schema ${AB_SCHEMA}, got ${String(result.schema)}`);
  }
  return abSection(result, path.relative(REPO_ROOT, AB_JSON));
}
