// Served model versions without worker threads, for registry, validation and WebSocket tests: a
// config from config.pbtxt text through the config pipeline (as the loader makes it, minus the
// filesystem), its signature, a reporter on its own metrics catalog, and the scheduler the config
// picks, dispatching to an execution target the test drives (OUT = 2 * IN, answered on demand).

import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import { deepFreeze } from '../../../src/config/deep-freeze.js';
import type { ModelConfig } from '../../../src/config/model-config.js';
import { normalizeModelConfig } from '../../../src/config/normalize.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { checkSupported } from '../../../src/config/unsupported.js';
import { validateModelConfig } from '../../../src/config/validate.js';
import { MetricsCatalog } from '../../../src/metrics/metrics-catalog.js';
import { ModelReporter } from '../../../src/metrics/model-reporter.js';
import { backendFor } from '../../../src/repository/backends/registry.js';
import { modelSignature, type ModelSignature } from '../../../src/repository/model-signature.js';
import type { ModelEntry, ModelVersion } from '../../../src/repository/model-version.js';
import { createScheduler } from '../../../src/scheduler/create-scheduler.js';
import type { ExecutionTarget } from '../../../src/scheduler/execution-target.js';
import { ManualTarget } from '../scheduler/fixtures.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';

/** The config pipeline on `text` for a model directory named `name` holding model.onnx. */
export function configFromText(text: string, name = 'm'): ModelConfig {
  const raw = autocompleteCoreFields(parseModelConfig(text, 'config.pbtxt'), {
    modelName: name,
    versionHasOnnxModel: true,
  });
  checkSupported(raw, backendConfigRules());
  const { config } = normalizeModelConfig(raw, {
    backends: backendConfigRules(),
    availableGpus: [],
  });
  validateModelConfig(config, {
    backends: backendConfigRules(),
    modelName: name,
    availableGpus: [],
  });
  return deepFreeze(config);
}

/** The signature validation receives for `text` at `version`. */
export function signatureFromText(text: string, name = 'm', version = 1): ModelSignature {
  const config = configFromText(text, name);
  return modelSignature(config, version, {
    bytesMayHoldNul: backendFor(config).bytesMayHoldNul,
  });
}

/** FP32 IN [-1, 2] -> FP32 OUT [-1, 2], batching up to 8: the shape ManualTarget computes. */
export const TWICE_CONFIG = `
max_batch_size: 8
input { name: "IN" data_type: TYPE_FP32 dims: [ 2 ] }
output { name: "OUT" data_type: TYPE_FP32 dims: [ 2 ] }
`;

export function servedVersion(
  config: ModelConfig,
  version: number,
  target: ExecutionTarget = new ManualTarget(1),
): ModelVersion {
  const reporter = new ModelReporter(new MetricsCatalog(), config.name, version);
  const scheduler = createScheduler(config, target, reporter);
  return {
    name: config.name,
    version,
    config,
    signature: modelSignature(config, version),
    reporter,
    scheduler,
    ready: () => true,
    unload: () => scheduler.stop(),
  };
}

/** A READY entry serving `versions` (in the order given), or UNAVAILABLE with `reason`. */
export function modelEntry(
  name: string,
  versions: readonly ModelVersion[],
  reason = '',
): ModelEntry {
  return {
    name,
    state: versions.length > 0 ? 'READY' : 'UNAVAILABLE',
    reason,
    config: versions[0]?.config,
    versions: new Map(versions.map((v) => [v.version, v])),
    statuses: new Map(),
    wanted: true,
  };
}
