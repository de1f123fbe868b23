// What poll mode compares between two scans of a model directory: every file's path, size and
// modification time, three levels deep (config, labels, configs/, warmup/, version directories and
// the files in them, a model stored as a directory). A changed fingerprint means "load it again";
// the load itself decides what actually changed.

import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

const DEPTH = 3;

export async function modelFingerprint(modelDir: string): Promise<string> {
  const hash = createHash('sha256');
  await walk(modelDir, '', DEPTH, hash);
  return hash.digest('hex');
}

async function walk(
  dir: string,
  rel: string,
  depth: number,
  hash: ReturnType<typeof createHash>,
): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    hash.update(`${rel}!${(e as NodeJS.ErrnoException).code ?? 'error'}\n`);
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(dir, e.name);
    const name = rel === '' ? e.name : `${rel}/${e.name}`;
    try {
      const s = await stat(full); // follows symlinks, as the repository scan does
      hash.update(`${name}\t${s.isDirectory() ? 'd' : 'f'}\t${s.size}\t${s.mtimeMs}\t${s.ino}\n`);
      if (s.isDirectory() && depth > 1) await walk(full, name, depth - 1, hash);
    } catch (err) {
      hash.update(`${name}!${(err as NodeJS.ErrnoException).code ?? 'error'}\n`);
    }
  }
}
