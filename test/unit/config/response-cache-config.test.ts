// `response_cache { enable }` through the config pipeline: accepted, shown by /config, and refused
// for the models whose answer is not one request's (decoupled and sequence models).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toConfigJson } from '../../../src/config/config-json.js';
import { IO, pipeline, rejects } from './pipeline-helpers.js';

void test('response_cache { enable: true } passes the pipeline and is shown by /config', () => {
  const { config, warnings } = pipeline(`${IO} response_cache { enable: true }`);
  assert.deepEqual(config.response_cache, { enable: true });
  assert.deepEqual(warnings, []);
  assert.deepEqual(toConfigJson(config).response_cache, { enable: true });
  const off = pipeline(`${IO} response_cache { enable: false }`).config;
  assert.deepEqual(toConfigJson(off).response_cache, { enable: false });
  assert.equal('response_cache' in toConfigJson(pipeline(IO).config), false);
});

void test("a decoupled model enabling the cache is refused in Triton's words", () => {
  rejects(
    `backend: "javascript" ${IO} model_transaction_policy { decoupled: true } response_cache { enable: true }`,
    'CONFIG_INVALID',
    "Response Cache does not currently support model m with 'decoupled' transaction policy. Please disable the response cache.",
  );
});

void test('a sequence model enabling the cache is refused', () => {
  rejects(
    `max_batch_size: 2 ${IO} sequence_batching { } response_cache { enable: true }`,
    'CONFIG_INVALID',
    /^Response Cache does not currently support model m with sequence batching/,
  );
});
