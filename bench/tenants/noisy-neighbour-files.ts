// bench/results/noisy-neighbour.json read back for its section of bench/RESULTS.md.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import { NOISY_SCHEMA, noisySection, type NoisyResult } from './noisy-neighbour-result.js';

export const NOISY_JSON = path.join(RESULTS_DIR, 'noisy-neighbour.json');

/** The section, or nothing when the bench has not been published. */
export async function renderNoisyNeighbour(): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(NOISY_JSON, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const result = JSON.parse(text) as NoisyResult;
  if (result.schema !== NOISY_SCHEMA) {
    throw new Error(`${NOISY_JSON}: expected schema ${NOISY_SCHEMA}, got ${String(result.schema)}`);
  }
  return noisySection(result, path.relative(REPO_ROOT, NOISY_JSON));
}
