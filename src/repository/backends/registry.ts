// The backends the server runs, one line each: a config's backend (or an ensemble's platform) ->
// its `Backend`. A new backend is a folder beside these and one line in BACKENDS: its config rules
// (`Backend.config`) reach the config pipeline through `backendConfigRules()`, whose list is also
// what validateBackend accepts, so config/ does not change. `createBackendRegistry` builds a
// registry from any list (tests register a backend of their own).

import {
  unusedBackendSettings,
  type BackendConfig,
  type BackendSetting,
  type BackendSettingKeys,
} from '../../config/backend-config.js';
import type { BackendRuleList } from '../../config/backend-rules.js';
import { rulesName } from '../../config/backend-rules.js';
import type { ModelConfig } from '../../config/model-config.js';
import { validateBackend } from '../../config/validate.js';
import type { BackendThreadConfig } from '../../execution/thread-budget.js';
import { fail } from '../../errors.js';
import type { Backend } from './backend.js';
import { ENSEMBLE } from './ensemble/ensemble-backend.js';
import { JAVASCRIPT } from './javascript/javascript-backend.js';
import { ONNXRUNTIME } from './onnxruntime/onnxruntime-backend.js';

export interface BackendRegistry {
  /** Every registered backend, in registry order. */
  readonly backends: readonly Backend[];
  /** Their config rules, in the same order: what the config pipeline accepts and checks. */
  readonly configRules: BackendRuleList;
  /**
   * The backend of a config: its `backend`, or its `platform` when it names none (an ensemble). A
   * pair the config pipeline refuses gets the same error here (validateBackend's), so no caller
   * can tell where it was caught.
   */
  backendFor(config: Pick<ModelConfig, 'name' | 'platform' | 'backend'>): Backend;
}

/**
 * A registry of `backends`. Two under one name, or one whose config rules are registered under
 * another name, is a bug: refused here rather than one silently shadowing the other.
 */
export function createBackendRegistry(backends: readonly Backend[]): BackendRegistry {
  const byName = new Map<string, Backend>();
  for (const b of backends) {
    if (byName.has(b.name)) throw fail('INTERNAL', `two backends are registered as "${b.name}"`);
    if (rulesName(b.config) !== b.name) {
      throw fail(
        'INTERNAL',
        `backend "${b.name}" has the config rules of "${rulesName(b.config)}"`,
      );
    }
    byName.set(b.name, b);
  }
  const list = Object.freeze([...backends]);
  const configRules = Object.freeze(list.map((b) => b.config));
  return Object.freeze({
    backends: list,
    configRules,
    backendFor: (config: Pick<ModelConfig, 'name' | 'platform' | 'backend'>): Backend => {
      validateBackend(config, configRules);
      const name = config.backend !== '' ? config.backend : config.platform;
      const backend = byName.get(name);
      // validateBackend accepted it, so a backend has that name.
      if (backend === undefined) throw fail('INTERNAL', `no backend is registered as "${name}"`);
      return backend;
    },
  });
}

/** The server's backends. */
const REGISTRY = createBackendRegistry([ONNXRUNTIME, JAVASCRIPT, ENSEMBLE]);

/** Every registered backend, in registry order. */
export function registeredBackends(): readonly Backend[] {
  return REGISTRY.backends;
}

/** The registered backends' config rules: the `backends` the config pipeline takes. */
export function backendConfigRules(): BackendRuleList {
  return REGISTRY.configRules;
}

/**
 * Reads the server's `--backend-config` settings with every backend that takes some (CONFIG_INVALID
 * quoting a bad flag): what the thread budget plans with, and the settings no backend reads.
 */
export function readBackendSettings(config: BackendConfig): {
  readonly threads: BackendThreadConfig;
  readonly unused: readonly BackendSetting[];
} {
  let threads: BackendThreadConfig = NO_SHARED_THREAD_POOL;
  const readers: BackendSettingKeys[] = [];
  for (const b of REGISTRY.backends) {
    if (b.settings === undefined) continue;
    readers.push(b.settings);
    threads = b.settings.read(config) ?? threads;
  }
  return Object.freeze({ threads, unused: unusedBackendSettings(config, readers) });
}

const NO_SHARED_THREAD_POOL: BackendThreadConfig = Object.freeze({
  globalThreadPool: false,
  intraOpThreadCount: 0,
  interOpThreadCount: 0,
});

/** The models `config`'s backend says must serve before it (none for an absent config). */
export function modelDependencies(config: ModelConfig | undefined): readonly string[] {
  return config === undefined ? [] : backendFor(config).dependencies(config);
}

/** The registered backend of a config (BackendRegistry.backendFor). */
export function backendFor(config: Pick<ModelConfig, 'name' | 'platform' | 'backend'>): Backend {
  return REGISTRY.backendFor(config);
}
