// Golden config.pbtxt cases: each directory under test/golden/config holds a config.pbtxt and either
// expected.json (what the parser returns) or expected-error.txt (the exact CONFIG_SYNTAX message,
// with the file named relative to test/golden/config). See test/golden/config/README.md.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { InferenceServerError } from '../../../src/errors.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { canonical } from './golden-json.js';

const GOLDEN = path.join(REPO_ROOT, 'test', 'golden', 'config');

const cases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

void test('the golden directory has cases of both kinds', () => {
  const errors = cases.filter((c) => existsSync(path.join(GOLDEN, c, 'expected-error.txt')));
  assert.ok(cases.length - errors.length >= 15, `${cases.length - errors.length} parse cases`);
  assert.ok(errors.length >= 20, `${errors.length} error cases`);
});

for (const name of cases) {
  void test(`golden config: ${name}`, () => {
    const dir = path.join(GOLDEN, name);
    const bytes = readFileSync(path.join(dir, 'config.pbtxt'));
    const file = `${name}/config.pbtxt`;
    const errorFile = path.join(dir, 'expected-error.txt');
    const jsonFile = path.join(dir, 'expected.json');
    if (existsSync(errorFile)) {
      const expected = readFileSync(errorFile, 'utf8').trimEnd();
      assert.throws(
        () => parseModelConfig(bytes, file),
        (e: unknown) => {
          assert.ok(e instanceof InferenceServerError, `not an InferenceServerError: ${String(e)}`);
          assert.equal(e.code, 'CONFIG_SYNTAX');
          assert.equal(e.message, expected);
          return true;
        },
      );
    } else {
      assert.ok(existsSync(jsonFile), `${name} has neither expected.json nor expected-error.txt`);
      const expected: unknown = JSON.parse(readFileSync(jsonFile, 'utf8'));
      assert.deepStrictEqual(canonical(parseModelConfig(bytes, file)), expected);
    }
  });
}
