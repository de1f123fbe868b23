// What a model recipe produces and how it lands on disk: `<dir>/<name>/<version>/model.onnx`, plus
// `<dir>/<name>/config.pbtxt` when the recipe carries one (fixtures do; bundled configs are committed).

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface GeneratedModel {
  readonly name: string;
  readonly version: number;
  readonly bytes: Uint8Array;
  /** config.pbtxt text, or undefined to leave the directory's config alone (or absent). */
  readonly config?: string;
}

/**
 * Writes `content` unless the file already holds exactly those bytes. Skipping identical files keeps
 * their mtime, so a server polling the repository does not see every `npm test` as a model change.
 */
async function writeIfChanged(file: string, content: Uint8Array): Promise<boolean> {
  try {
    const existing = await readFile(file);
    if (Buffer.compare(existing, content) === 0) return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await writeFile(file, content);
  return true;
}

/** Writes every model under `dir`; returns the paths actually (re)written, for the CLI's log. */
export async function writeModels(
  dir: string,
  models: readonly GeneratedModel[],
): Promise<string[]> {
  const written: string[] = [];
  for (const m of models) {
    const versionDir = path.join(dir, m.name, String(m.version));
    await mkdir(versionDir, { recursive: true });
    const modelFile = path.join(versionDir, 'model.onnx');
    if (await writeIfChanged(modelFile, m.bytes)) written.push(modelFile);
    if (m.config !== undefined) {
      const configFile = path.join(dir, m.name, 'config.pbtxt');
      if (await writeIfChanged(configFile, Buffer.from(m.config, 'utf8'))) written.push(configFile);
    }
  }
  return written;
}
