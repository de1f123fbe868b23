// Builds a throwaway model repository for a test from bundled and fixture models, plus hand-written
// broken ones. Each repository is removed when the test process exits.

import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MODEL_REPOSITORY, TEST_FIXTURES } from './paths.js';
import { tempDir } from './temp-dir.js';

export const FIXTURE_REPOSITORY = path.join(TEST_FIXTURES, 'repository');

export async function tempRepository(): Promise<string> {
  return tempDir('infernode-repo-');
}

/** Copies a bundled model (`model_repository/<name>`) or a fixture model into `repo`. */
export async function copyModel(repo: string, name: string, as: string = name): Promise<string> {
  const bundled = path.join(MODEL_REPOSITORY, name);
  const fixture = path.join(FIXTURE_REPOSITORY, name);
  const from = name.startsWith('identity_') && name !== 'identity_bytes' ? fixture : bundled;
  const source = ['slow_fp32', 'bad_truncated', 'mlp_reseeded', 'failing_run'].includes(name)
    ? fixture
    : from;
  const to = path.join(repo, as);
  await cp(source, to, { recursive: true });
  return to;
}

/** Writes `<repo>/<name>/config.pbtxt` (and copies `modelFrom`'s version 1 model when given). */
export async function writeModel(
  repo: string,
  name: string,
  configText: string | undefined,
  modelFrom?: string,
): Promise<void> {
  const dir = path.join(repo, name);
  await mkdir(path.join(dir, '1'), { recursive: true });
  if (configText !== undefined) await writeFile(path.join(dir, 'config.pbtxt'), configText);
  if (modelFrom !== undefined) {
    await cp(
      path.join(MODEL_REPOSITORY, modelFrom, '1', 'model.onnx'),
      path.join(dir, '1', 'model.onnx'),
    );
  }
}
