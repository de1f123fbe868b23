// The ensemble-overhead bench's published file, bench/results/ensemble-overhead.json, read back
// for its section of bench/RESULTS.md.

import path from 'node:path';
import { RESULTS_DIR } from '../paths.js';
import { readPublished } from '../report/published-file.js';
import { ENSEMBLE_SCHEMA, ensembleSection, type EnsembleResult } from './ensemble-result.js';

export const ENSEMBLE_JSON = path.join(RESULTS_DIR, 'ensemble-overhead.json');

/** The section, or nothing when the bench has not been published. */
export async function renderEnsembleOverhead(): Promise<string[]> {
  const published = await readPublished<EnsembleResult>(ENSEMBLE_JSON, ENSEMBLE_SCHEMA);
  return published === null ? [] : ensembleSection(published.result, published.source);
}
