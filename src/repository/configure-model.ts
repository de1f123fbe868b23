// One model's load plan: its directory run through the config pipeline, and the version files its
// version_policy selects, each with the identity (size, modification time) a reload compares.
// Reasons never carry absolute paths: they reach clients through the index and load answers.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { BackendConfig } from '../config/backend-config.js';
import { loadModelConfig } from '../config/load-model-config.js';
import type { ModelConfig } from '../config/model-config.js';
import { fail } from '../errors.js';
import type { ModelThreadDemand } from '../execution/thread-budget.js';
import type { Backend, VersionStart } from './backends/backend.js';
import { backendConfigRules, backendFor } from './backends/registry.js';
import { shadowPolicy } from '../config/shadow-policy.js';
import { selectVersions } from './version-policy.js';

/** Where a model is loaded from: a repository directory, or a load call's private directory. */
export interface ModelSource {
  readonly name: string;
  /** The model directory (its base name is the model name). */
  readonly dir: string;
  /** Numeric version directories present, ascending. */
  readonly versions: readonly number[];
}

/** A version's model file and what identifies its content for a reload. */
export interface VersionFile {
  /** Absolute path of the model file (never shown to clients). */
  readonly path: string;
  /** Size and modification time: a reload restarts a version only when these changed. */
  readonly identity: string;
}

export interface ConfiguredModel {
  readonly source: ModelSource;
  readonly config: ModelConfig;
  /** The backend that runs it (backends/registry.ts), chosen once here from the config. */
  readonly backend: Backend;
  /** Starts one of its versions: its backend's start, bound to the settings the backend read. */
  readonly start: VersionStart;
  /** What each version asks of the thread budget (its backend's reading of the config). */
  readonly threadParameters: ModelThreadDemand['params'];
  /** Things to log at WARN (autofilled values, ignored fields, the backend's unknown parameters). */
  readonly warnings: readonly string[];
  /** The versions to serve (present and selected by version_policy, plus a shadow), ascending. */
  readonly files: ReadonlyMap<number, VersionFile>;
}

export interface ConfigureOptions {
  readonly backend: BackendConfig;
  readonly disableAutoComplete: boolean;
  /** `--model-config-name` ('' or absent: config.pbtxt). */
  readonly configName?: string;
  readonly availableGpus: readonly number[] | undefined;
  /** A load call's `config` parameter: ModelConfig JSON used instead of config.pbtxt. */
  readonly configJson?: string;
  /** Whether the server has a response cache (`--cache-config`); absent: none. */
  readonly responseCache?: boolean;
}

export async function configureModel(
  source: ModelSource,
  options: ConfigureOptions,
): Promise<ConfiguredModel> {
  const loaded = await loadModelConfig(source.dir, {
    backends: backendConfigRules(),
    backendConfig: options.backend,
    disableAutoComplete: options.disableAutoComplete,
    ...(options.configName !== undefined ? { configName: options.configName } : {}),
    ...(options.availableGpus !== undefined ? { availableGpus: options.availableGpus } : {}),
    ...(options.configJson !== undefined ? { configOverride: { json: options.configJson } } : {}),
  });
  const { config } = loaded;
  if (config.response_cache?.enable === true && options.responseCache !== true) {
    // Triton loads such a model and never caches its answers; refusing says at once that the
    // server's flag is missing instead of leaving an operator to wonder why nothing is cached.
    throw fail(
      'CONFIG_INVALID',
      `model '${config.name}' enables response_cache but the server has no response cache; start it with --cache-config local,size=<bytes>`,
    );
  }
  const backend = backendFor(config);
  // The backend reads its own settings before anything else may fail the load, as the pipeline did.
  const bound = backend.bind(loaded);
  const files = await versionFiles(source, config, backend);
  if (files.size === 0) {
    throw fail(
      'MODEL_LOAD_FAILED',
      `no version of model '${source.name}' holds ${config.default_model_filename} under its version policy`,
    );
  }
  return {
    source,
    config,
    backend,
    start: bound.start,
    threadParameters: bound.threadParameters,
    warnings: [...loaded.warnings, ...bound.warnings],
    files,
  };
}

/** The served versions and their model files: present on disk and selected by version_policy. */
async function versionFiles(
  source: ModelSource,
  config: ModelConfig,
  backend: Backend,
): Promise<Map<number, VersionFile>> {
  const present: number[] = [];
  const files = new Map<number, VersionFile>();
  for (const v of source.versions) {
    // An ensemble's version directory holds no model file: its steps name other models.
    const file = !backend.hasModelFile
      ? { path: path.join(source.dir, String(v)), identity: backend.name }
      : await modelFile(path.join(source.dir, String(v)), config.default_model_filename);
    if (file !== undefined) {
      present.push(v);
      files.set(v, file);
    }
  }
  // A shadow version (config/shadow-policy.ts) is loaded whatever the policy says: the policy
  // picks the serving versions among the others, so the shadow never displaces one, and
  // promoting it is dropping the two parameters (then the policy sees it like any version).
  const shadow = shadowPolicy(config)?.version;
  const selected = new Set(
    selectVersions(
      config.version_policy,
      present.filter((v) => v !== shadow),
    ),
  );
  if (shadow !== undefined) {
    if (!files.has(shadow)) {
      throw fail(
        'MODEL_LOAD_FAILED',
        `shadow_version ${shadow} of model '${source.name}' holds no ${config.default_model_filename}`,
      );
    }
    if (selected.size === 0) {
      throw fail(
        'MODEL_LOAD_FAILED',
        `model '${source.name}' has no version to serve besides its shadow_version ${shadow}`,
      );
    }
    selected.add(shadow);
  }
  const ascending = new Map<number, VersionFile>();
  for (const v of [...files.keys()].sort((a, b) => a - b)) {
    const file = files.get(v);
    if (file !== undefined && selected.has(v)) ascending.set(v, file);
  }
  return ascending;
}

/** `<versionDir>/<filename>`, or `<versionDir>/<filename>/model.onnx` when it is a directory. */
async function modelFile(versionDir: string, filename: string): Promise<VersionFile | undefined> {
  const p = path.join(versionDir, filename);
  try {
    let s = await stat(p);
    let file = p;
    if (s.isDirectory()) {
      file = path.join(p, 'model.onnx');
      s = await stat(file);
    }
    if (!s.isFile()) return undefined;
    return { path: file, identity: `${s.size}:${s.mtimeMs}:${s.ino}` };
  } catch {
    return undefined;
  }
}

/** An error's message with the repository roots (and private directories) made relative. */
export function scrubReason(e: unknown, roots: readonly string[]): string {
  let reason = e instanceof Error ? e.message : String(e);
  for (const root of roots)
    reason = reason
      .split(root + path.sep)
      .join('')
      .split(root)
      .join('.');
  return reason;
}
