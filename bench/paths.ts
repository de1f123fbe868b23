// Where the harness finds the repository from its compiled location (dist/bench/*.js), and where it
// writes: bench/out/ for every run (git-ignored), bench/results/ + bench/RESULTS.md for the
// published run (committed).

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/bench/paths.js -> the repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(REPO_ROOT, 'dist');
export const INFERNODE_CLI = path.join(DIST, 'src', 'cli', 'main.js');
export const DEFAULT_MODEL_REPOSITORY = path.join(REPO_ROOT, 'model_repository');
export const BENCH_OUT = path.join(REPO_ROOT, 'bench', 'out');
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
export const RESULTS_MD = path.join(REPO_ROOT, 'bench', 'RESULTS.md');
export const README = path.join(REPO_ROOT, 'README.md');

/** A compiled sibling of this file (child-process and worker entries live next to it in dist/). */
export function benchEntry(...relative: string[]): string {
  return path.join(DIST, 'bench', ...relative);
}
