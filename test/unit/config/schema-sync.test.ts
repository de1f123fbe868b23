// The committed generated schema must be what scripts/generate-config-schema.ts makes from Triton's
// model_config.proto, vendored at schemas/triton/ so the check runs on every checkout
// (TRITON_MODEL_CONFIG_PROTO points it at another copy, e.g. a newer Triton release).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  DEFAULT_OUT,
  DEFAULT_PROTO,
  generateSchemaSource,
} from '../../../scripts/generate-config-schema.js';
import { REPO_ROOT } from '../../helpers/paths.js';

const proto = path.resolve(REPO_ROOT, process.env.TRITON_MODEL_CONFIG_PROTO ?? DEFAULT_PROTO);
const committed = readFileSync(path.join(REPO_ROOT, DEFAULT_OUT), 'utf8');

void test('src/config/generated/model-config-schema.ts is up to date with model_config.proto', () => {
  assert.equal(
    generateSchemaSource(readFileSync(proto, 'utf8')),
    committed,
    `run: node dist/scripts/generate-config-schema.js ${path.relative(REPO_ROOT, proto)}`,
  );
});

void test('the generated file records the sha256 of the vendored proto', () => {
  const sha = createHash('sha256')
    .update(readFileSync(path.join(REPO_ROOT, DEFAULT_PROTO)))
    .digest('hex');
  assert.match(committed, new RegExp(`^// Source sha256: ${sha}$`, 'm'));
});
