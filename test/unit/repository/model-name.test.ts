// The model-name whitelist that guards every filesystem path built from a name (Triton
// CVE-2023-31036 / CVE-2025-23316): 1-128 characters of [A-Za-z0-9_.-], never "." or "..".

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertValidModelName, isValidModelName } from '../../../src/repository/model-name.js';
import { throwsCode } from '../protocol/expect-error.js';

void describe('model names', () => {
  void it('accepts the whitelist, dots included', () => {
    for (const name of [
      'm',
      'simple',
      'a-b_c.d',
      '...',
      '..my_model',
      'model..1',
      'x'.repeat(128),
    ]) {
      assert.equal(isValidModelName(name), true, name);
      assertValidModelName(name);
    }
  });

  void it('refuses anything that could leave the repository, with the grammar in the message', () => {
    for (const name of [
      '',
      '.',
      '..',
      '../etc',
      'a/b',
      'a\\b',
      'x'.repeat(129),
      'caf\u00e9',
      'a b',
      'a\0b',
    ]) {
      assert.equal(isValidModelName(name), false, JSON.stringify(name));
      throwsCode(
        () => assertValidModelName(name),
        'BAD_MODEL_NAME',
        `invalid model name ${JSON.stringify(name)}: expected 1-128 characters of [A-Za-z0-9_.-], not "." or ".."`,
      );
    }
  });

  void it('quotes at most 200 characters of a long name', () => {
    const name = 'z'.repeat(5000);
    throwsCode(
      () => assertValidModelName(name),
      'BAD_MODEL_NAME',
      `invalid model name "${'z'.repeat(200)}": expected 1-128 characters of [A-Za-z0-9_.-], not "." or ".."`,
    );
  });
});
