// The ensemble backend (platform `ensemble`): a version has no instances of its own, only the check
// that the models its steps name serve with matching tensors (check-ensemble.ts), its reporter, and
// the ensemble scheduler that runs the steps through the data plane. It is ready while every step's
// model is.

import { ENSEMBLE_PLATFORM } from '../../../config/autocomplete.js';
import type { ModelConfig } from '../../../config/model-config.js';
import { ModelReporter } from '../../../metrics/model-reporter.js';
import { modelSignature } from '../../model-signature.js';
import type { ModelVersion } from '../../model-version.js';
import { NO_THREAD_PARAMETERS, type Backend, type BackendDeps } from '../backend.js';
import { checkEnsemble } from './check-ensemble.js';
import { ENSEMBLE_CONFIG_RULES } from './ensemble-config.js';
import { stepVersion } from './ensemble-host.js';
import { EnsembleScheduler } from './ensemble-scheduler.js';

export const ENSEMBLE: Backend = Object.freeze<Backend>({
  name: ENSEMBLE_PLATFORM,
  config: ENSEMBLE_CONFIG_RULES,
  hasModelFile: false,
  ortSessions: false,
  // Each step's model checks its own inputs for NUL bytes.
  bytesMayHoldNul: true,
  dependencies: (config) => ensembleDependencies(config),
  // It reads nothing beyond the common fields (ensemble-config.ts checks its steps).
  bind: () => ({
    // Synchronous throws become the load's rejection, as for the other backends.
    start: (configured, version, _budget, _warmup, deps) =>
      Promise.resolve().then(() => startEnsembleVersion(configured.config, version, deps)),
    threadParameters: NO_THREAD_PARAMETERS,
    warnings: [],
  }),
});

function startEnsembleVersion(
  config: ModelConfig,
  version: number,
  deps: BackendDeps,
): ModelVersion {
  checkEnsemble(config, deps.host);
  const reporter = new ModelReporter(deps.catalog, config.name, version);
  const scheduler = new EnsembleScheduler(config, deps.host, deps.maxInputBytes);
  const steps = config.ensemble_scheduling?.step ?? [];
  deps.logger
    .child({ model: config.name })
    .info({ version, steps: steps.map((s) => s.model_name) }, 'ensemble version ready');
  return {
    name: config.name,
    version,
    config,
    signature: modelSignature(config, version, { bytesMayHoldNul: ENSEMBLE.bytesMayHoldNul }),
    reporter,
    scheduler,
    ready: () => steps.every((s) => deps.host.ready(s.model_name, stepVersion(s.model_version))),
    unload: () => scheduler.stop(),
  };
}

/** The models an ensemble's steps name (its dependencies), once each. */
function ensembleDependencies(config: ModelConfig | undefined): string[] {
  return [...new Set((config?.ensemble_scheduling?.step ?? []).map((s) => s.model_name))];
}
