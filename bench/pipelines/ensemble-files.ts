// The ensemble-overhead bench's published file, bench/results/ensemble-overhead.json, read back
// for its section of bench/RESULTS.md.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import { ENSEMBLE_SCHEMA, ensembleSection, type EnsembleResult } from './ensemble-result.js';

export const ENSEMBLE_JSON = path.join(RESULTS_DIR, 'ensemble-overhead.json');

/** The section, or nothing when the bench has not been published. */
export async function renderEnsembleOverhead(): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(ENSEMBLE_JSON, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const result = JSON.parse(text) as EnsembleResult;
  if (result.schema !== ENSEMBLE_SCHEMA) {
    throw new Error(
      `${ENSEMBLE_JSON}: expected schema ${ENSEMBLE_SCHEMA}, got ${String(result.schema)}`,
    );
  }
  return ensembleSection(result, path.relative(REPO_ROOT, ENSEMBLE_JSON));
}
