// The OCR models' npm packages are optional dependencies: where they cannot be imported, `ocr` and
// `ocr_rgb` fail to load with a reason that names the model, the package and the install command,
// and the server still serves every other model. The models are copied into a temporary
// repository outside this checkout, where Node's resolution finds no node_modules/ and so no
// `sharp`, exactly as on a host installed with `npm ci --omit=optional`: nothing in the server is
// stubbed.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { postJson } from '../helpers/test-server.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { waitFor } from '../helpers/wait-for.js';

interface IndexEntry {
  name: string;
  state: string;
  reason: string;
}

const SHARP_VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    optionalDependencies: Record<string, string>;
  }
).optionalDependencies.sharp;

const repo = await tempRepository();

/** Why this test cannot show a missing package here: `sharp` resolves from the repository copy. */
function sharpResolvesFrom(dir: string): string | undefined {
  try {
    const found = createRequire(path.join(dir, 'probe.js')).resolve('sharp');
    return `sharp resolves from ${dir} (${found}), so it cannot be missing there`;
  } catch {
    return undefined;
  }
}

void describe(
  'OCR models without their optional packages',
  { skip: sharpResolvesFrom(repo) },
  () => {
    let s: SpawnedServer;
    before(async () => {
      for (const model of ['simple', 'identity_bytes', 'ocr', 'ocr_rgb'])
        await copyModel(repo, model);
      s = await spawnServer([`--model-repository=${repo}`, '--exit-on-error=false'], 60_000);
    });
    after(async () => {
      if (s !== undefined && s.child.exitCode === null) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
      await rm(repo, { recursive: true, force: true });
    });

    const index = async (): Promise<Map<string, IndexEntry>> => {
      const r = await postJson(`${s.base}/v2/repository/index`, {});
      assert.equal(r.status, 200);
      return new Map((r.json as IndexEntry[]).map((e) => [e.name, e]));
    };

    void it('marks ocr and ocr_rgb UNAVAILABLE, naming the package and how to install it', async () => {
      const settled = await waitFor(index, (m) =>
        [...m.values()].every((e) => e.state === 'READY' || e.state === 'UNAVAILABLE'),
      );
      for (const model of ['ocr', 'ocr_rgb']) {
        const e = settled.get(model);
        assert.equal(e?.state, 'UNAVAILABLE', JSON.stringify(e));
        assert.match(
          e.reason,
          new RegExp(
            `model '${model}' needs the optional package 'sharp' ` +
              `\\(npm install sharp@${SHARP_VERSION?.replaceAll('.', '\\.')}\\): ` +
              `Cannot find package 'sharp'`,
          ),
        );
      }
    });

    void it('serves every other model', async () => {
      const settled = await waitFor(index, (m) => m.get('simple')?.state === 'READY');
      assert.equal(settled.get('simple')?.state, 'READY');
      assert.equal(settled.get('identity_bytes')?.state, 'READY');
      const r = await postJson(`${s.base}/v2/models/simple/infer`, {
        inputs: [
          { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(2) },
          { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
        ],
      });
      assert.equal(r.status, 200, JSON.stringify(r.json));
    });
  },
);
