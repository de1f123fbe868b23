// The backends the server runs, one line each: a config's backend (or an ensemble's platform) ->
// its `Backend`. A new backend is a folder beside these and one line here (and its name accepted by
// config/validate.ts's validateBackend, which refuses every other pair before a model loads).

import type { ModelConfig } from '../../config/model-config.js';
import { validateBackend } from '../../config/validate.js';
import { fail } from '../../errors.js';
import type { Backend } from './backend.js';
import { ENSEMBLE } from './ensemble/ensemble-backend.js';
import { JAVASCRIPT } from './javascript/javascript-backend.js';
import { ONNXRUNTIME } from './onnxruntime/onnxruntime-backend.js';

const BACKENDS: ReadonlyMap<string, Backend> = new Map(
  [ONNXRUNTIME, JAVASCRIPT, ENSEMBLE].map((b) => [b.name, b]),
);

/** Every registered backend, in registry order. */
export function registeredBackends(): readonly Backend[] {
  return [...BACKENDS.values()];
}

/** The models `config`'s backend says must serve before it (none for an absent config). */
export function modelDependencies(config: ModelConfig | undefined): readonly string[] {
  return config === undefined ? [] : backendFor(config).dependencies(config);
}

/**
 * The backend of a config: its `backend`, or its `platform` when it names none (an ensemble). A
 * pair the config pipeline refuses gets the same error here (validateBackend's), so no caller can
 * tell where it was caught.
 */
export function backendFor(config: Pick<ModelConfig, 'name' | 'platform' | 'backend'>): Backend {
  validateBackend(config);
  const name = config.backend !== '' ? config.backend : config.platform;
  const backend = BACKENDS.get(name);
  // validateBackend accepted it: a backend it names is missing from the registry (a bug).
  if (backend === undefined) throw fail('INTERNAL', `no backend is registered as "${name}"`);
  return backend;
}
