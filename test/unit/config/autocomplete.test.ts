// Core autocomplete: the backend fields Triton core fills for every model (triton-reference.md §3.4).
// The ORT backend's filling from the model is in
// test/unit/execution/onnxruntime/config/ort-autocomplete.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import type { RawModelConfig } from '../../../src/config/generated/model-config-schema.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';

const parse = (text: string): RawModelConfig => parseModelConfig(text, 'config.pbtxt');

void test('core fields: name from the directory; onnxruntime backend, platform and file from any ONNX hint', () => {
  const fromDir = autocompleteCoreFields({}, { modelName: 'dir', versionHasOnnxModel: true });
  assert.deepEqual(fromDir, {
    name: 'dir',
    backend: 'onnxruntime',
    platform: 'onnxruntime_onnx',
    default_model_filename: 'model.onnx',
  });
  const fromPlatform = autocompleteCoreFields(parse('name: "n" platform: "onnxruntime_onnx"'), {
    modelName: 'dir',
    versionHasOnnxModel: false,
  });
  assert.equal(fromPlatform.name, 'n', 'a configured name is kept (validation compares it)');
  assert.equal(fromPlatform.backend, 'onnxruntime');
  assert.equal(fromPlatform.default_model_filename, 'model.onnx');
  const fromBackend = autocompleteCoreFields(
    parse('backend: "onnxruntime" default_model_filename: "net.onnx"'),
    {
      modelName: 'dir',
      versionHasOnnxModel: false,
    },
  );
  assert.equal(fromBackend.platform, 'onnxruntime_onnx');
  assert.equal(fromBackend.default_model_filename, 'net.onnx');
});

void test('core fields: other backends and unknown layouts are left for validation to reject', () => {
  const python = autocompleteCoreFields(parse('backend: "python"'), {
    modelName: 'p',
    versionHasOnnxModel: true,
  });
  assert.equal(python.backend, 'python');
  assert.equal(python.platform, undefined);
  const nothing = autocompleteCoreFields({}, { modelName: 'q', versionHasOnnxModel: false });
  assert.deepEqual(nothing, { name: 'q' });
  const otherFile = autocompleteCoreFields(parse('default_model_filename: "model.plan"'), {
    modelName: 'r',
    versionHasOnnxModel: true,
  });
  assert.equal(otherFile.backend, undefined, 'a named non-ONNX file is not guessed to be ONNX');
});
