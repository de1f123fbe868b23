// The model as the cached servers of `infernode-bench cache` serve it: a temporary repository
// holding a copy of the model with `response_cache { enable: true }` added to its config.pbtxt
// (the uncached server serves the repository as it is: a model enabling the cache is refused by
// a server without one).

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../options/usage-error.js';
import type { TempRepository } from '../targets/unbatched-repository.js';

export async function cachedRepository(repository: string, model: string): Promise<TempRepository> {
  const source = path.join(repository, model);
  const config = await readFile(path.join(source, 'config.pbtxt'), 'utf8').catch(() => {
    throw new UsageError(`cache: ${source} needs a config.pbtxt to enable response_cache in`);
  });
  if (/response_cache/.test(config)) {
    throw new UsageError(`cache: ${source}/config.pbtxt already sets response_cache`);
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-cached-'));
  await cp(source, path.join(dir, model), { recursive: true });
  await writeFile(
    path.join(dir, model, 'config.pbtxt'),
    `${config}\nresponse_cache { enable: true }\n`,
  );
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
