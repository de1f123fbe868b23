// "Batching off" for bench:compare: a temporary repository holding a copy of the model whose
// config.pbtxt has its `dynamic_batching { ... }` block removed, so infernode serves it with the
// direct scheduler — the same model, files and instances, one request per run.

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../options/usage-error.js';

export interface TempRepository {
  readonly dir: string;
  remove(): Promise<void>;
}

/**
 * `text` without its top-level `dynamic_batching` block (`dynamic_batching { }` or with `:`),
 * braces matched past nested messages, strings and `#` comments. Unchanged when there is none.
 */
export function withoutDynamicBatching(text: string): string {
  const start = /(^|[\s}\]])dynamic_batching\s*:?\s*\{/m.exec(text);
  if (start === null) return text;
  const from = start.index + (start[1] ?? '').length;
  let depth = 0;
  let i = start.index + start[0].length - 1;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '"' || ch === "'") {
      for (i++; i < text.length && text[i] !== ch; i++) if (text[i] === '\\') i++;
    } else if (ch === '{') {
      depth++;
    } else if (ch === '}' && --depth === 0) {
      break;
    }
  }
  return `${text.slice(0, from)}${text.slice(i + 1)}`;
}

export async function unbatchedRepository(
  repository: string,
  model: string,
): Promise<TempRepository> {
  const source = path.join(repository, model);
  const config = await readFile(path.join(source, 'config.pbtxt'), 'utf8').catch(() => {
    throw new UsageError(
      `infernode-unbatched: ${source} needs a config.pbtxt (autocomplete would add dynamic_batching)`,
    );
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-unbatched-'));
  await cp(source, path.join(dir, model), { recursive: true });
  await writeFile(path.join(dir, model, 'config.pbtxt'), withoutDynamicBatching(config));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
