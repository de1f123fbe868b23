// bench/results/noisy-neighbour.json read back for its section of bench/RESULTS.md.

import path from 'node:path';
import { RESULTS_DIR } from '../paths.js';
import { readPublished } from '../report/published-file.js';
import { NOISY_SCHEMA, noisySection, type NoisyResult } from './noisy-neighbour-result.js';

export const NOISY_JSON = path.join(RESULTS_DIR, 'noisy-neighbour.json');

/** The section, or nothing when the bench has not been published. */
export async function renderNoisyNeighbour(): Promise<string[]> {
  const published = await readPublished<NoisyResult>(NOISY_JSON, NOISY_SCHEMA);
  return published === null ? [] : noisySection(published.result, published.source);
}
