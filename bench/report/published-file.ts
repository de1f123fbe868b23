// A bench's published result file (bench/results/<name>.json) read back for its section of
// bench/RESULTS.md: null when the bench has not been published, an error when the file was written
// by a schema this code does not render.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../paths.js';

export async function readPublished<T extends { schema: string }>(
  file: string,
  schema: string,
): Promise<{ result: T; source: string } | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const result = JSON.parse(text) as T;
  if (result.schema !== schema) {
    throw new Error(`${file}: expected schema ${schema}, got ${String(result.schema)}`);
  }
  return { result, source: path.relative(REPO_ROOT, file) };
}
