// docs/validate.md's threshold table against the code: every threshold flag with its default, and
// no row the code does not know.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { THRESHOLD_FLAGS } from '../../../src/validate/thresholds.js';
import { REPO_ROOT } from '../../helpers/paths.js';

void describe('docs/validate.md thresholds', () => {
  void it('lists every threshold flag with its default', async () => {
    const doc = await readFile(path.join(REPO_ROOT, 'docs', 'validate.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `--([a-z0-9-]+)`\s*\| ([^|]+)\|/gm)].map((m) => [
      m[1],
      (m[2] as string).trim(),
    ]);
    const documented = new Map(rows.map(([f, d]) => [f as string, d as string]));
    for (const [flag, spec] of Object.entries(THRESHOLD_FLAGS)) {
      const shown = documented.get(flag);
      assert.ok(shown !== undefined, `--${flag} is not in the table`);
      const expected = Number.isFinite(spec.default) ? String(spec.default) : 'off';
      assert.equal(shown, expected, `--${flag}`);
    }
    for (const flag of documented.keys())
      assert.ok(flag in THRESHOLD_FLAGS, `--${flag} is not a threshold`);
  });
});
