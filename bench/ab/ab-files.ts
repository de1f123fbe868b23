// The per-request A/B bench's published file, bench/results/per-request-ab.json, read back for its
// section of bench/RESULTS.md.

import path from 'node:path';
import { RESULTS_DIR } from '../paths.js';
import { readPublished } from '../report/published-file.js';
import { AB_SCHEMA, abSection, type AbResult } from './ab-result.js';

export const AB_JSON = path.join(RESULTS_DIR, 'per-request-ab.json');

/** The section, or nothing when the bench has not been published. */
export async function renderPerRequestAb(): Promise<string[]> {
  const published = await readPublished<AbResult>(AB_JSON, AB_SCHEMA);
  return published === null ? [] : abSection(published.result, published.source);
}
