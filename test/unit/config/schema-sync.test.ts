// The committed generated schema must be what scripts/generate-config-schema.ts makes from Triton's
// model_config.proto. Skipped where the proto is not present (a user's clone has no /work/shared).

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  DEFAULT_OUT,
  DEFAULT_PROTO,
  generateSchemaSource,
} from '../../../scripts/generate-config-schema.js';
import { REPO_ROOT } from '../../helpers/paths.js';

const proto = process.env.TRITON_MODEL_CONFIG_PROTO ?? DEFAULT_PROTO;

void test(
  'src/config/generated/model-config-schema.ts is up to date with model_config.proto',
  {
    skip: existsSync(proto)
      ? false
      : `${proto} is not present (set TRITON_MODEL_CONFIG_PROTO to check)`,
  },
  () => {
    const committed = readFileSync(path.join(REPO_ROOT, DEFAULT_OUT), 'utf8');
    assert.equal(
      generateSchemaSource(readFileSync(proto, 'utf8')),
      committed,
      'run: node dist/scripts/generate-config-schema.js',
    );
  },
);

void test('the generated file records the proto it came from', () => {
  const committed = readFileSync(path.join(REPO_ROOT, DEFAULT_OUT), 'utf8');
  assert.match(committed, /^\/\/ Source sha256: [0-9a-f]{64}$/m);
});
