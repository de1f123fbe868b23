// The shadow-overhead bench's published file, bench/results/shadow-overhead.json, read back for its
// section of bench/RESULTS.md.

import path from 'node:path';
import { RESULTS_DIR } from '../paths.js';
import { readPublished } from '../report/published-file.js';
import { SHADOW_SCHEMA, shadowSection, type ShadowResult } from './shadow-result.js';

export const SHADOW_JSON = path.join(RESULTS_DIR, 'shadow-overhead.json');

/** The section, or nothing when the bench has not been published. */
export async function renderShadowOverhead(): Promise<string[]> {
  const published = await readPublished<ShadowResult>(SHADOW_JSON, SHADOW_SCHEMA);
  return published === null ? [] : shadowSection(published.result, published.source);
}
