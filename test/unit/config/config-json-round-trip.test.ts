// The JSON a client gets from /v2/models/{m}/config, given back as the load API's config override,
// yields the same model: toConfigJson -> JSON.stringify -> parseModelConfigJson -> the pipeline ->
// a config deepEqual to the original. Run over the bundled repository, the generated test fixtures
// (real directories, real model files) and the golden config.pbtxt cases.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { toConfigJson, type ConfigJsonOptions } from '../../../src/config/config-json.js';
import type { ModelConfig } from '../../../src/config/model-config.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { parseModelConfigJson } from '../../../src/config/parse-model-config-json.js';
import { bundledModels } from '../../../scripts/onnx/bundled-models.js';
import { fixtureModels } from '../../../scripts/onnx/fixture-models.js';
import { writeModels } from '../../../scripts/onnx/generated-model.js';
import { MODEL_REPOSITORY, REPO_ROOT } from '../../helpers/paths.js';
import { loadAndBind, tempRepository } from './model-dir-helpers.js';
import { pipelineFrom } from './pipeline-helpers.js';

const INT64_FORMS: readonly NonNullable<ConfigJsonOptions['int64']>[] = ['number', 'string'];

/** The /config JSON as a client would send it back. */
const asOverride = (config: ModelConfig, int64: ConfigJsonOptions['int64']) =>
  JSON.stringify(toConfigJson(config, { int64 }));

const bundled = bundledModels();
const fixtures = fixtureModels();

// The bundled models with the committed config.pbtxt files (addsub_fp32 has none: it is completed
// from its model, read by onnxruntime-node); the fixtures carry their own configs.
const repo = tempRepository('infernode-config-round-trip-', async (root) => {
  await writeModels(root, [...bundled, ...fixtures]);
  for (const m of bundled) {
    const committed = path.join(MODEL_REPOSITORY, m.name, 'config.pbtxt');
    if (existsSync(committed)) await copyFile(committed, path.join(root, m.name, 'config.pbtxt'));
  }
});

void test('every committed model_repository config is a bundled model, a JavaScript model or an ensemble', () => {
  const committed = readdirSync(MODEL_REPOSITORY).filter((d) =>
    existsSync(path.join(MODEL_REPOSITORY, d, 'config.pbtxt')),
  );
  assert.ok(committed.length >= 3, committed.join(', '));
  for (const name of committed) {
    if (bundled.some((m) => m.name === name)) continue;
    // No generated model file: its files are committed (model.mjs) or it has none (an ensemble).
    const raw = parseModelConfig(
      readFileSync(path.join(MODEL_REPOSITORY, name, 'config.pbtxt'), 'utf8'),
      'config.pbtxt',
    );
    assert.ok(raw.backend === 'javascript' || raw.platform === 'ensemble', name);
  }
});

for (const m of [...bundled, ...fixtures]) {
  void test(`round trip through loadModelConfig: ${m.name}`, async () => {
    const dir = path.join(repo.root(), m.name);
    const original = await loadAndBind(dir);
    for (const int64 of INT64_FORMS) {
      const again = await loadAndBind(dir, {
        configOverride: { json: asOverride(original.loaded.config, int64) },
      });
      assert.deepStrictEqual(again.loaded.config, original.loaded.config, `int64 as ${int64}`);
      // What its backend reads of it (ORT's parameters) is the same too.
      assert.deepStrictEqual(
        again.bound.threadParameters,
        original.bound.threadParameters,
        `int64 as ${int64}`,
      );
      assert.equal(again.loaded.configPath, undefined);
    }
  });
}

const GOLDEN = path.join(REPO_ROOT, 'test', 'golden', 'config');
const goldenParseCases = readdirSync(GOLDEN)
  .filter((c) => existsSync(path.join(GOLDEN, c, 'expected.json')))
  .sort();

// Most golden cases exercise syntax, not a servable model (sequence batching, ensembles, no
// inputs...), so the pipeline refuses them. For those the round trip is checked on the parsed config:
// printing what the JSON reader read back prints the same JSON, so every field the printer writes
// (every message, map, oneof, NaN and infinity in them) is read back to the same value.
void test('golden configs: the JSON of every parsed config reads back to the same config', () => {
  let throughPipeline = 0;
  for (const c of goldenParseCases) {
    const raw = parseModelConfig(readFileSync(path.join(GOLDEN, c, 'config.pbtxt')), c);
    for (const int64 of INT64_FORMS) {
      // The printer walks any message by the schema; a raw config is one, with fields left unset.
      const printed = toConfigJson(raw as unknown as ModelConfig, { int64 });
      const reread = parseModelConfigJson(JSON.stringify(printed), c);
      assert.deepStrictEqual(
        toConfigJson(reread as unknown as ModelConfig, { int64 }),
        printed,
        `${c}, int64 as ${int64}`,
      );
    }
    let config: ModelConfig;
    try {
      config = pipelineFrom(raw, [], raw.name || 'm').config;
    } catch {
      continue;
    }
    throughPipeline++;
    for (const int64 of INT64_FORMS) {
      const again = pipelineFrom(
        parseModelConfigJson(asOverride(config, int64), c),
        [],
        config.name,
      );
      assert.deepStrictEqual(again.config, config, `${c}, int64 as ${int64}`);
    }
  }
  assert.ok(goldenParseCases.length >= 15, `${goldenParseCases.length} golden parse cases`);
  assert.ok(throughPipeline >= 3, `${throughPipeline} golden cases pass the pipeline`);
});
