// Lists what a model repository holds on disk: one entry per model directory, with its numeric
// version directories. Reads directory names only; config parsing is the config pipeline's job.

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isValidModelName } from './model-name.js';

export interface RepositoryEntry {
  readonly name: string;
  readonly dir: string;
  /** Numeric version directories present, ascending. */
  readonly versions: readonly number[];
}

export interface ScanResult {
  readonly models: readonly RepositoryEntry[];
  /** Directory names skipped because they are not legal model names. */
  readonly skipped: readonly string[];
}

const VERSION_DIR = /^[0-9]{1,18}$/;

export async function listVersions(modelDir: string): Promise<number[]> {
  const entries = await readdir(modelDir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && VERSION_DIR.test(e.name))
    .map((e) => Number(e.name))
    .filter((v) => Number.isSafeInteger(v) && v > 0)
    .sort((a, b) => a - b);
}

export async function scanRepository(root: string): Promise<ScanResult> {
  const entries = await readdir(root, { withFileTypes: true });
  const models: RepositoryEntry[] = [];
  const skipped: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory()) continue;
    if (!isValidModelName(e.name)) {
      skipped.push(e.name);
      continue;
    }
    const dir = path.join(root, e.name);
    models.push({ name: e.name, dir, versions: await listVersions(dir) });
  }
  return { models, skipped };
}
