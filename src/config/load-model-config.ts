// The config pipeline for one model directory: read config.pbtxt (or none, or the load API's JSON
// instead) -> parse -> autocomplete (core fields, then the backend's own: ORT's from the model file)
// -> reject unsupported features -> normalize -> validate (then the backend's check against what its
// autocomplete read) -> deep-freeze. The one place a ModelConfig is made. What differs by backend
// comes from the backends' rules (`backends`, backend-rules.ts), which config/ does not name. The backend's own settings (ORT's parameters, a JavaScript model's timeouts) are read
// next, by its backend, when the repository configures the model (repository/backends/).

import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fail } from '../errors.js';
import { autocompleteCoreFields, ONNX_MODEL_FILENAME } from './autocomplete.js';
import { parseBackendConfig, type BackendConfig } from './backend-config.js';
import { rulesFor, type BackendAutocomplete, type BackendRuleList } from './backend-rules.js';
import { deepFreeze } from './deep-freeze.js';
import type { RawModelConfig } from './generated/model-config-schema.js';
import type { ModelConfig } from './model-config.js';
import { normalizeModelConfig } from './normalize.js';
import { parseModelConfig } from './parse-model-config.js';
import { parseModelConfigJson } from './parse-model-config-json.js';
import type { ReadModelIO } from './read-model-io.js';
import { checkSupported } from './unsupported.js';
import { validateBackend, validateModelConfig } from './validate.js';

/** What errors in a `configOverride` name it by. */
export const CONFIG_JSON_LABEL = 'config JSON';

const NO_BACKEND_CONFIG = parseBackendConfig([]);

export interface LoadModelConfigOptions {
  /**
   * The backends the server runs (repository/backends/registry.ts, `backendConfigRules()`): the
   * backend/platform pairs accepted, and each one's model files, instance defaults and rules.
   */
  readonly backends: BackendRuleList;
  /** The server's `--backend-config` settings, for a backend's autocomplete; none when absent. */
  readonly backendConfig?: BackendConfig;
  /** `--disable-auto-complete-config`: config.pbtxt must exist and list inputs and outputs itself. */
  readonly disableAutoComplete?: boolean;
  /** Reads a model file's inputs and outputs for a backend's autocomplete (tests inject a fake). */
  readonly readModelIO?: ReadModelIO;
  /** GPU ids this process may use; none by default. */
  readonly availableGpus?: readonly number[];
  /** `--model-config-name`: use `configs/<name>.pbtxt` when the model has it, else config.pbtxt. */
  readonly configName?: string;
  /**
   * The repository load API's `parameters.config`: the JSON text of a ModelConfig, used instead of
   * config.pbtxt (which, like `configName`, is then not read). It goes through the same pipeline
   * as the file: an empty or missing `name` becomes the directory's name, and any other name that
   * differs from it is refused, as Triton does. Errors in it name `config JSON`.
   */
  readonly configOverride?: { readonly json: string };
}

export interface LoadedModelConfig {
  readonly config: ModelConfig;
  /** Things the loader should log at WARN (autofilled values, ignored fields, unknown parameters). */
  readonly warnings: readonly string[];
  /**
   * The config file that was read; undefined when the config came from `configOverride`, or when the
   * model has none and was fully autocompleted.
   */
  readonly configPath: string | undefined;
}

export async function loadModelConfig(
  modelDir: string,
  options: LoadModelConfigOptions,
): Promise<LoadedModelConfig> {
  const modelName = path.basename(path.resolve(modelDir));
  const autoComplete = options.disableAutoComplete !== true;
  const versions = await versionDirs(modelDir);
  const { parsed, configPath } = await readConfig(modelDir, modelName, options);

  const hasOnnx = await firstVersionWith(modelDir, versions, ONNX_MODEL_FILENAME);
  const filenames =
    parsed.backend !== undefined && parsed.backend !== ''
      ? rulesFor(options.backends, parsed)?.modelFilenames
      : undefined;
  const backendModelFilename =
    filenames === undefined ? undefined : await modelFileOf(modelDir, versions, filenames);
  let raw = autocompleteCoreFields(parsed, {
    modelName,
    versionHasOnnxModel: hasOnnx !== undefined,
    ...(backendModelFilename !== undefined && { backendModelFilename }),
  });
  // Cheap checks first, so a misnamed or non-ONNX model fails before its model file is opened.
  checkName(raw, modelName);
  const rules = validateBackend(
    { name: raw.name ?? '', platform: raw.platform ?? '', backend: raw.backend ?? '' },
    options.backends,
  );

  const warnings: string[] = [];
  let completed: BackendAutocomplete | undefined;
  if (autoComplete && rules.autocomplete !== undefined) {
    completed = await rules.autocomplete(raw, {
      modelName,
      modelDir,
      modelFile: (file) => firstVersionWith(modelDir, versions, file),
      backendConfig: options.backendConfig ?? NO_BACKEND_CONFIG,
      ...(options.readModelIO !== undefined && { readModelIO: options.readModelIO }),
    });
    if (completed !== undefined) {
      raw = completed.config;
      warnings.push(...completed.warnings);
    }
  }

  warnings.push(...checkSupported(raw, options.backends));
  const normalized = normalizeModelConfig(raw, {
    availableGpus: options.availableGpus ?? [],
    backends: options.backends,
  });
  warnings.push(...normalized.warnings);
  validateModelConfig(normalized.config, {
    modelName,
    backends: options.backends,
    ...(options.availableGpus !== undefined ? { availableGpus: options.availableGpus } : {}),
  });
  completed?.check?.(normalized.config);
  return deepFreeze({
    config: normalized.config,
    warnings,
    configPath,
  });
}

/** The raw config: the JSON override, else the config file (none is `{}` when autocomplete may fill it). */
async function readConfig(
  modelDir: string,
  modelName: string,
  options: LoadModelConfigOptions,
): Promise<{ parsed: RawModelConfig; configPath: string | undefined }> {
  if (options.configOverride !== undefined) {
    return {
      parsed: parseModelConfigJson(options.configOverride.json, CONFIG_JSON_LABEL),
      configPath: undefined,
    };
  }
  const configPath = await chooseConfigFile(modelDir, options.configName);
  const bytes = await readOptional(configPath);
  if (bytes !== undefined) return { parsed: parseModelConfig(bytes, configPath), configPath };
  if (options.disableAutoComplete === true) {
    throw fail(
      'CONFIG_INVALID',
      `model '${modelName}': ${configPath} is required when auto-complete is disabled`,
    );
  }
  return { parsed: {}, configPath: undefined };
}

function checkName(raw: RawModelConfig, modelName: string): void {
  if (raw.name !== modelName) {
    throw fail(
      'CONFIG_INVALID',
      `unexpected directory name '${modelName}' for model '${raw.name ?? ''}', directory name must equal model name`,
    );
  }
}

async function chooseConfigFile(modelDir: string, configName: string | undefined): Promise<string> {
  if (configName !== undefined && configName !== '') {
    if (/[\\/]|^\.\.?$/.test(configName)) {
      throw fail(
        'CONFIG_INVALID',
        `--model-config-name must be a plain file name, got "${configName}"`,
      );
    }
    const custom = path.join(modelDir, 'configs', `${configName}.pbtxt`);
    if ((await statOrUndefined(custom))?.isFile() === true) return custom;
  }
  return path.join(modelDir, 'config.pbtxt');
}

async function readOptional(file: string): Promise<Uint8Array | undefined> {
  try {
    return await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fail('MODEL_LOAD_FAILED', `cannot read ${file}: ${(e as Error).message}`);
  }
}

async function statOrUndefined(p: string): Promise<Awaited<ReturnType<typeof stat>> | undefined> {
  try {
    return await stat(p);
  } catch {
    return undefined;
  }
}

/** The first of a backend's model file names that some version directory holds, else the first. */
async function modelFileOf(
  modelDir: string,
  versions: readonly number[],
  filenames: readonly string[],
): Promise<string | undefined> {
  for (const file of filenames) {
    if ((await firstVersionWith(modelDir, versions, file)) !== undefined) return file;
  }
  return filenames[0];
}

/**
 * Numbered version directories, highest first. As in Triton, names with leading zeros or anything
 * but digits are not versions.
 */
async function versionDirs(modelDir: string): Promise<number[]> {
  let entries;
  try {
    entries = await readdir(modelDir, { withFileTypes: true });
  } catch (e) {
    throw fail(
      'MODEL_LOAD_FAILED',
      `cannot list model directory ${modelDir}: ${(e as Error).message}`,
    );
  }
  return entries
    .filter((d) => d.isDirectory() && /^(0|[1-9][0-9]{0,15})$/.test(d.name))
    .map((d) => Number(d.name))
    .sort((a, b) => b - a);
}

/**
 * The model file in the highest version that has `file`: the file itself, or `<file>/model.onnx`
 * when `file` is a directory (an ONNX model stored with external data files).
 */
async function firstVersionWith(
  modelDir: string,
  versions: readonly number[],
  file: string,
): Promise<string | undefined> {
  for (const v of versions) {
    const p = path.join(modelDir, String(v), file);
    const s = await statOrUndefined(p);
    if (s?.isFile() === true) return p;
    if (s?.isDirectory() === true) {
      const inner = path.join(p, ONNX_MODEL_FILENAME);
      if ((await statOrUndefined(inner))?.isFile() === true) return inner;
    }
  }
  return undefined;
}
