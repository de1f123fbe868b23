// The config pipeline without the filesystem, for rule tests: parse -> core fields -> unsupported
// check -> normalize -> validate -> ORT parameters, for a model directory named `m` by default.

import assert from 'node:assert/strict';
import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import type { RawModelConfig } from '../../../src/config/generated/model-config-schema.js';
import type { ModelConfig } from '../../../src/config/model-config.js';
import { normalizeModelConfig } from '../../../src/config/normalize.js';
import {
  readOrtParameters,
  type OrtParameters,
} from '../../../src/execution/onnxruntime/config/ort-parameters.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { checkSupported } from '../../../src/config/unsupported.js';
import { validateModelConfig } from '../../../src/config/validate.js';
import { InferenceServerError, type ErrorCode } from '../../../src/errors.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';

export const IO =
  'input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }';

export interface PipelineResult {
  readonly config: ModelConfig;
  readonly ort: OrtParameters;
  readonly warnings: readonly string[];
}

/** parse -> core fields -> unsupported check -> normalize -> validate -> ORT parameters. */
export function pipeline(text: string, availableGpus: number[] = []): PipelineResult {
  return pipelineFrom(parseModelConfig(text, 'config.pbtxt'), availableGpus);
}

/** The pipeline after the parser, for a config parsed from either form; the directory is `modelName`. */
export function pipelineFrom(
  parsed: RawModelConfig,
  availableGpus: number[] = [],
  modelName = 'm',
): PipelineResult {
  const raw = autocompleteCoreFields(parsed, { modelName, versionHasOnnxModel: true });
  const warnings = checkSupported(raw, backendConfigRules());
  const normalized = normalizeModelConfig(raw, { backends: backendConfigRules(), availableGpus });
  validateModelConfig(normalized.config, {
    backends: backendConfigRules(),
    modelName,
    availableGpus,
  });
  const ort = readOrtParameters(normalized.config);
  return {
    config: normalized.config,
    ort: ort.parameters,
    warnings: [...warnings, ...normalized.warnings, ...ort.warnings],
  };
}

/** The pipeline's warnings for `text`. */
export function check(text: string, availableGpus: number[] = []): string[] {
  return [...pipeline(text, availableGpus).warnings];
}

export function rejects(
  text: string,
  code: ErrorCode,
  message: string | RegExp,
  gpus: number[] = [],
): void {
  assert.throws(
    () => check(text, gpus),
    (e: unknown) => {
      assert.ok(e instanceof InferenceServerError, String(e));
      assert.equal(e.code, code, e.message);
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
  );
}
