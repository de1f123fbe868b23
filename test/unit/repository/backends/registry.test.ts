// The backend registry: every platform/backend pair the config pipeline accepts maps to exactly one
// Backend, each registered backend is reachable, and a pair it refuses gets the very error the
// config pipeline gives (validateBackend's), code and message.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateBackend } from '../../../../src/config/validate.js';
import { InferenceServerError } from '../../../../src/errors.js';
import type { ModelConfig } from '../../../../src/config/model-config.js';
import {
  backendConfigRules,
  backendFor,
  modelDependencies,
  registeredBackends,
} from '../../../../src/repository/backends/registry.js';

/** Every (platform, backend) pair validateBackend accepts, and the backend each must map to. */
const ACCEPTED = [
  { platform: 'onnxruntime_onnx', backend: 'onnxruntime', expect: 'onnxruntime' },
  { platform: '', backend: 'onnxruntime', expect: 'onnxruntime' },
  { platform: '', backend: 'javascript', expect: 'javascript' },
  { platform: 'ensemble', backend: '', expect: 'ensemble' },
] as const;

const REFUSED = [
  { platform: '', backend: '' },
  { platform: 'tensorflow_savedmodel', backend: '' },
  { platform: '', backend: 'python' },
  { platform: 'onnxruntime_onnx', backend: 'javascript' },
  { platform: 'ensemble', backend: 'onnxruntime' },
  { platform: 'onnxruntime_onnx', backend: '' },
] as const;

function errorOf(fn: () => unknown): InferenceServerError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InferenceServerError, `expected InferenceServerError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a throw');
}

void describe('backend registry', () => {
  void it('maps every accepted platform/backend pair to exactly one backend', () => {
    for (const { platform, backend, expect } of ACCEPTED) {
      const config = { name: 'm', platform, backend };
      validateBackend(config, backendConfigRules()); // the pair is one the config pipeline lets through
      const found = backendFor(config);
      assert.equal(found.name, expect, `platform "${platform}", backend "${backend}"`);
      assert.equal(registeredBackends().filter((b) => b === found).length, 1);
    }
  });

  void it('registers each backend once, under a distinct name, and every one is reachable', () => {
    const names = registeredBackends().map((b) => b.name);
    assert.deepEqual(names, [...new Set(names)]);
    assert.deepEqual(new Set(names), new Set(ACCEPTED.map((a) => a.expect)));
  });

  void it('refuses an unknown pair with the config pipeline error, code and message', () => {
    for (const { platform, backend } of REFUSED) {
      const config = { name: 'm', platform, backend };
      const expected = errorOf(() => validateBackend(config, backendConfigRules()));
      const got = errorOf(() => backendFor(config));
      assert.equal(got.code, expected.code);
      assert.equal(got.message, expected.message);
    }
  });

  void it('says which backends hold a model file and ORT sessions', () => {
    const by = new Map(registeredBackends().map((b) => [b.name, b]));
    assert.deepEqual(
      [...by.values()].map((b) => [b.name, b.hasModelFile, b.ortSessions]),
      [
        ['onnxruntime', true, true],
        ['javascript', true, false],
        ['ensemble', false, false],
      ],
    );
  });

  void it("names an ensemble's step models as its dependencies, once each; others have none", () => {
    const step = (model_name: string) => ({ model_name, model_version: -1 });
    const ensemble = {
      name: 'e',
      platform: 'ensemble',
      backend: '',
      ensemble_scheduling: { step: [step('a'), step('b'), step('a')] },
    } as unknown as ModelConfig;
    assert.deepEqual(modelDependencies(ensemble), ['a', 'b']);
    const onnx = { name: 'm', platform: 'onnxruntime_onnx', backend: 'onnxruntime' };
    assert.deepEqual(modelDependencies(onnx as unknown as ModelConfig), []);
    assert.deepEqual(modelDependencies(undefined), []);
  });
});
