// Lists what a model repository holds on disk: one entry per model directory, with its numeric
// version directories. Reads directory names only; config parsing is the config pipeline's job.

import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fail, type InferenceServerError } from '../errors.js';
import { isValidModelName } from './model-name.js';

export interface RepositoryEntry {
  readonly name: string;
  readonly dir: string;
  /** Numeric version directories present, ascending. */
  readonly versions: readonly number[];
}

export interface ScanResult {
  readonly models: readonly RepositoryEntry[];
  /** Directory (or symlink) names skipped because they are not legal model names. */
  readonly skipped: readonly string[];
}

/**
 * Hears of a symlink skipped because its target cannot be read (dangling, a loop, no
 * permission): `name` is `model` or `model/version`, relative to the repository.
 */
export type UnreadableEntry = (name: string, reason: string) => void;

const IGNORE: UnreadableEntry = () => undefined;

const VERSION_DIR = /^[0-9]{1,18}$/;

/**
 * Whether `e` (an entry of `parent`) is a directory, following a symlink as Triton does (it stats
 * each entry): a repository assembled from links is served, not silently emptied. A symlink whose
 * target cannot be read is reported through `unreadable` rather than failing the scan.
 */
async function isDirectory(
  parent: string,
  e: Dirent,
  unreadable: (reason: string) => void,
): Promise<boolean> {
  if (e.isDirectory()) return true;
  if (!e.isSymbolicLink()) return false;
  try {
    return (await stat(path.join(parent, e.name))).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    unreadable(`symlink cannot be followed (${code})`);
    return false;
  }
}

/**
 * The model directory's version directories, ascending. `unreadable` hears of a version symlink
 * that cannot be followed (with the version's name).
 */
export async function listVersions(
  modelDir: string,
  unreadable: UnreadableEntry = IGNORE,
): Promise<number[]> {
  const entries = await readdir(modelDir, { withFileTypes: true });
  const versions: number[] = [];
  for (const e of entries) {
    if (!VERSION_DIR.test(e.name)) continue;
    const v = Number(e.name);
    if (!Number.isSafeInteger(v) || v <= 0) continue;
    if (await isDirectory(modelDir, e, (reason) => unreadable(e.name, reason))) versions.push(v);
  }
  return versions.sort((a, b) => a - b);
}

export async function scanRepository(
  root: string,
  unreadable: UnreadableEntry = IGNORE,
): Promise<ScanResult> {
  const entries = await readdir(root, { withFileTypes: true });
  const models: RepositoryEntry[] = [];
  const skipped: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory() && !e.isSymbolicLink()) continue;
    // The whitelist runs before any path is built from the name, for a symlink too.
    if (!isValidModelName(e.name)) {
      skipped.push(e.name);
      continue;
    }
    if (!(await isDirectory(root, e, (reason) => unreadable(e.name, reason)))) continue;
    const dir = path.join(root, e.name);
    const versions = await listVersions(dir, (version, reason) =>
      unreadable(`${e.name}/${version}`, reason),
    );
    models.push({ name: e.name, dir, versions });
  }
  return { models, skipped };
}

/**
 * Every model directory of every repository, by name; a name two repositories hold maps to the
 * error a load of it answers with (Triton refuses to guess which one is meant).
 */
export async function scanRepositories(
  roots: readonly string[],
  onSkipped: UnreadableEntry,
): Promise<Map<string, RepositoryEntry | InferenceServerError>> {
  const found = new Map<string, RepositoryEntry | InferenceServerError>();
  for (const root of roots) {
    const scan = await scanRepository(root, onSkipped);
    for (const m of scan.models) {
      found.set(
        m.name,
        found.has(m.name)
          ? fail('CONFIG_INVALID', `model '${m.name}' appears in more than one model repository`)
          : m,
      );
    }
  }
  return found;
}
