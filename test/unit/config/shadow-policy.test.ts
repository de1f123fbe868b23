// `shadow_version` / `shadow_share` read from a config that went through the pipeline: the policy,
// the values refused with what was expected and what arrived, and the model kinds refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shadowPolicy } from '../../../src/config/shadow-policy.js';
import { InferenceServerError } from '../../../src/errors.js';
import { IO, pipeline } from './pipeline-helpers.js';

const param = (key: string, value: string): string =>
  `parameters { key: "${key}" value: { string_value: "${value}" } }`;

function refused(text: string, message: RegExp): void {
  const config = pipeline(text).config;
  assert.throws(
    () => shadowPolicy(config),
    (e: unknown) =>
      e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && message.test(e.message),
  );
}

void test('no parameters: no shadow; both: a frozen policy, read once per config', () => {
  assert.equal(shadowPolicy(pipeline(IO).config), undefined);
  const config = pipeline(
    `${IO} ${param('shadow_version', '3')} ${param('shadow_share', '0.1')}`,
  ).config;
  const policy = shadowPolicy(config);
  assert.deepEqual(policy, { version: 3, share: 0.1 });
  assert.ok(Object.isFrozen(policy));
  assert.equal(shadowPolicy(config), policy);
  assert.deepEqual(
    shadowPolicy(
      pipeline(`${IO} ${param('shadow_version', '2')} ${param('shadow_share', '0')}`).config,
    ),
    { version: 2, share: 0 },
  );
});

void test('values that are not a version or a share are refused, saying what arrived', () => {
  refused(
    `${IO} ${param('shadow_version', '0')} ${param('shadow_share', '0.1')}`,
    /version number >= 1, got "0"/,
  );
  refused(`${IO} ${param('shadow_version', 'v2')} ${param('shadow_share', '0.1')}`, /got "v2"/);
  refused(`${IO} ${param('shadow_version', '2')}`, /share between 0 and 1, got none/);
  refused(`${IO} ${param('shadow_version', '2')} ${param('shadow_share', '1.5')}`, /got "1.5"/);
  refused(`${IO} ${param('shadow_version', '2')} ${param('shadow_share', '')}`, /got ""/);
  refused(`${IO} ${param('shadow_share', '0.5')}`, /'shadow_share' needs 'shadow_version'/);
});

void test('sequence and decoupled models are refused at load with a reason', () => {
  const both = `${param('shadow_version', '2')} ${param('shadow_share', '0.1')}`;
  refused(
    `max_batch_size: 2 ${IO} sequence_batching { } ${both}`,
    /not supported for a sequence model/,
  );
  refused(
    `backend: "javascript" ${IO} model_transaction_policy { decoupled: true } ${both}`,
    /not supported for a decoupled model/,
  );
});
