// The generator is deterministic: two runs into two temp dirs give byte-identical trees, and a rerun
// into the same dir rewrites nothing (so file mtimes stay put for repository polling).

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateBundled, generateFixtures } from '../../../scripts/generate-models.js';
import { tempDir } from './model-dirs.js';

/** Every file under `dir`, as sorted relative paths. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

async function assertSameTrees(a: string, b: string): Promise<string[]> {
  const filesA = await listFiles(a);
  assert.deepEqual(await listFiles(b), filesA);
  for (const f of filesA) {
    const [x, y] = await Promise.all([readFile(path.join(a, f)), readFile(path.join(b, f))]);
    assert.ok(x.equals(y), `${f} differs between runs (${x.length} vs ${y.length} bytes)`);
  }
  return filesA;
}

void describe('generator determinism', () => {
  const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
  let a = '';
  let b = '';
  before(async () => {
    for (let i = 0; i < 2; i++) dirs.push(await tempDir(`determinism-${i}`));
    [a, b] = dirs.map((d) => d.dir) as [string, string];
  });
  after(async () => {
    for (const d of dirs) await d.dispose();
  });

  void it('bundled: same bytes twice, only model.onnx files, nothing rewritten on rerun', async () => {
    const first = await generateBundled(path.join(a, 'bundled'));
    await generateBundled(path.join(b, 'bundled'));
    const files = await assertSameTrees(path.join(a, 'bundled'), path.join(b, 'bundled'));
    assert.deepEqual(files, [
      path.join('addsub_fp32', '1', 'model.onnx'),
      path.join('identity_bytes', '1', 'model.onnx'),
      path.join('mlp', '1', 'model.onnx'),
      path.join('ocr_detector', '1', 'model.onnx'),
      path.join('ocr_recognizer', '1', 'model.onnx'),
      path.join('sentiment_classifier', '1', 'model.onnx'),
      path.join('silero_vad', '1', 'model.onnx'),
      path.join('simple', '1', 'model.onnx'),
    ]);
    assert.equal(first.length, files.length);
    assert.deepEqual(await generateBundled(path.join(a, 'bundled')), []);
  });

  void it('fixtures: same bytes twice, a config.pbtxt beside every model, nothing rewritten on rerun', async () => {
    const first = await generateFixtures(path.join(a, 'fixtures'));
    await generateFixtures(path.join(b, 'fixtures'));
    const files = await assertSameTrees(path.join(a, 'fixtures'), path.join(b, 'fixtures'));
    const models = files.filter((f) => f.endsWith('model.onnx')).map((f) => f.split(path.sep)[0]);
    const configs = files
      .filter((f) => f.endsWith('config.pbtxt'))
      .map((f) => f.split(path.sep)[0]);
    assert.deepEqual(configs, models);
    assert.equal(first.length, files.length);
    assert.deepEqual(await generateFixtures(path.join(a, 'fixtures')), []);
  });
});
