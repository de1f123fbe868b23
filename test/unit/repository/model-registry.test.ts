// How the registry resolves (model, version) the way Triton does: no version means the highest
// ready one; an unknown model or version is 404, a model with no ready version 503, each with
// Triton's wording.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelRegistry } from '../../../src/repository/model-registry.js';
import { throwsCode } from '../protocol/expect-error.js';
import {
  configFromText,
  modelEntry,
  servedVersion,
  TWICE_CONFIG,
} from './model-version-fixture.js';

const config = configFromText(TWICE_CONFIG, 'm');
// Inserted out of order: "latest" must mean the highest version, not the last one added.
const v3 = servedVersion(config, 3);
const v1 = servedVersion(config, 1);
const v2 = servedVersion(config, 2);

function registry(): ModelRegistry {
  const r = new ModelRegistry();
  r.add(modelEntry('m', [v3, v1, v2]));
  r.add(modelEntry('broken', [], "model 'broken': config.pbtxt:1:1: unexpected '}'"));
  r.add(modelEntry('quiet', []));
  return r;
}

void describe('ModelRegistry.resolve', () => {
  void it('picks the highest version when none is asked for', () => {
    assert.equal(registry().resolve('m', undefined), v3);
    assert.equal(registry().resolve('m', ''), v3);
  });

  void it('picks the version asked for', () => {
    assert.equal(registry().resolve('m', '1'), v1);
    assert.equal(registry().resolve('m', '2'), v2);
  });

  void it('refuses an unknown model or version with 404', () => {
    throwsCode(
      () => registry().resolve('nope', undefined),
      'MODEL_NOT_FOUND',
      "Request for unknown model: 'nope' is not found",
    );
    throwsCode(
      () => registry().resolve('nope', '1'),
      'MODEL_NOT_FOUND',
      "Request for unknown model: 'nope' is not found",
    );
    throwsCode(
      () => registry().resolve('m', '7'),
      'MODEL_NOT_FOUND',
      "Request for unknown model: 'm' version 7 is not found",
    );
  });

  void it('refuses a model without ready versions with 503, giving the load failure', () => {
    throwsCode(
      () => registry().resolve('broken', undefined),
      'MODEL_NOT_READY',
      "Request for unknown model: 'broken' has no available versions: model 'broken': config.pbtxt:1:1: unexpected '}'",
    );
    throwsCode(
      () => registry().resolve('quiet', undefined),
      'MODEL_NOT_READY',
      "Request for unknown model: 'quiet' has no available versions",
    );
    // A numbered version of a model that has none is simply not found.
    throwsCode(
      () => registry().resolve('broken', '1'),
      'MODEL_NOT_FOUND',
      "Request for unknown model: 'broken' version 1 is not found",
    );
  });
});

void describe('ModelRegistry', () => {
  void it('lists entries in the order they were added and finds them by name', () => {
    const r = registry();
    assert.deepEqual(
      r.all().map((e) => e.name),
      ['m', 'broken', 'quiet'],
    );
    assert.equal(r.entry('m')?.versions.size, 3);
    assert.equal(r.entry('absent'), undefined);
  });

  void it('refuses to register a name twice instead of overwriting it', () => {
    const r = registry();
    assert.throws(() => r.add(modelEntry('m', [v1])), { message: "model 'm' registered twice" });
    assert.equal(r.resolve('m', undefined), v3);
  });

  void it('is ready only when every model is READY (strict readiness)', () => {
    assert.equal(new ModelRegistry().allReady(), true);
    const r = new ModelRegistry();
    r.add(modelEntry('m', [v1]));
    assert.equal(r.allReady(), true);
    r.add(modelEntry('broken', [], 'failed'));
    assert.equal(r.allReady(), false);
  });
});
