// The hand-written config.pbtxt files in model_repository/ agree with the models the generator
// builds: same tensor names, datatypes and (batch-stripped) dims. A light regex read of Triton's
// layout is enough here; the real parser is tested in the config suite.

import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromConfigType, fromOrtType } from '../../../src/tensor/datatypes.js';
import { generateBundled } from '../../../scripts/generate-models.js';
import { MODEL_REPOSITORY } from '../../helpers/paths.js';
import { openSession, tempDir } from './model-dirs.js';

interface ConfigTensor {
  name: string;
  dataType: string;
  dims: number[];
}

/** The `name` / `data_type` / `dims` triples of one `input [ ... ]` or `output [ ... ]` section. */
function section(text: string, key: 'input' | 'output'): ConfigTensor[] {
  const start = text.search(new RegExp(`^${key} \\[`, 'm'));
  assert.ok(start >= 0, `config has no ${key} section`);
  const end = text.indexOf('\n]', start);
  const body = text.slice(start, end);
  const re = /name: "([^"]+)"\s+data_type: (TYPE_\w+)\s+dims: \[([^\]]*)\]/g;
  return [...body.matchAll(re)].map((m) => ({
    name: m[1] as string,
    dataType: m[2] as string,
    dims: (m[3] as string).split(',').map((s) => Number(s.trim())),
  }));
}

void describe('committed model_repository configs', () => {
  let repo: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    repo = await tempDir('committed');
    await generateBundled(repo.dir);
  });
  after(async () => repo.dispose());

  for (const [model, maxBatch] of [
    ['simple', 8],
    ['mlp', 128],
    ['identity_bytes', 8],
    ['ocr_detector', 4],
    ['ocr_recognizer', 32],
  ] as const) {
    void it(`${model}/config.pbtxt matches the generated model's inputs and outputs`, async () => {
      const text = await readFile(path.join(MODEL_REPOSITORY, model, 'config.pbtxt'), 'utf8');
      assert.match(text, new RegExp(`^name: "${model}"$`, 'm'));
      assert.match(text, new RegExp(`^max_batch_size: ${maxBatch}$`, 'm'));
      const session = await openSession(repo.dir, model);
      const pairs = [
        [section(text, 'input'), session.inputMetadata],
        [section(text, 'output'), session.outputMetadata],
      ] as const;
      for (const [configured, actual] of pairs) {
        assert.deepEqual(
          configured.map((t) => t.name),
          actual.map((m) => m.name),
        );
        for (const [i, t] of configured.entries()) {
          const meta = actual[i];
          assert.ok(meta?.isTensor);
          assert.equal(fromConfigType(t.dataType), fromOrtType(meta.type), `${t.name} datatype`);
          // The model's leading dim is the symbolic batch dim; the config lists the rest, with
          // symbolic dims written as -1.
          assert.equal(typeof meta.shape[0], 'string');
          assert.deepEqual(
            t.dims,
            meta.shape.slice(1).map((d) => (typeof d === 'number' ? d : -1)),
          );
        }
      }
      await session.release();
    });
  }

  void it('mlp asks for dynamic batching and single-threaded ORT sessions', async () => {
    const text = await readFile(path.join(MODEL_REPOSITORY, 'mlp', 'config.pbtxt'), 'utf8');
    assert.match(text, /^dynamic_batching \{ \}$/m);
    assert.match(text, /key: "intra_op_thread_count"\n\s*value: \{ string_value: "1" \}/);
  });

  void it('addsub_fp32 ships without a config.pbtxt, so autocomplete has to fill it in', async () => {
    await assert.rejects(access(path.join(MODEL_REPOSITORY, 'addsub_fp32', 'config.pbtxt')), {
      code: 'ENOENT',
    });
  });
});
