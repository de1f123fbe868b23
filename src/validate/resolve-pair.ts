// Which two model files a validation compares, and the config they are held to. The config goes
// through the server's own pipeline (load-model-config.ts), autocompleted from the serving version's
// file, never the candidate's: a candidate that changed its signature must not rewrite the config it
// is checked against. The serving version is --version, or the highest version the model's version
// policy serves among the repository's versions with the candidate's directory left out (the
// repository as it was before the candidate landed).

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadModelConfig } from '../config/load-model-config.js';
import type { ModelConfig } from '../config/model-config.js';
import { readModelIO } from '../config/read-model-io.js';
import { backendConfigRules } from '../repository/backends/registry.js';
import { listVersions } from '../repository/scan-repository.js';
import { selectVersions } from '../repository/version-policy.js';
import { usage } from './usage-error.js';

export interface ModelPair {
  readonly modelDir: string;
  readonly config: ModelConfig;
  readonly serving: { readonly version: number; readonly file: string };
  /** `version` when the candidate is a version directory of the model, else undefined. */
  readonly candidate: { readonly version: number | undefined; readonly file: string };
}

export interface PairRequest {
  readonly modelRepository: string;
  readonly model: string;
  readonly version: number | undefined;
  readonly candidate: string;
}

async function statOrUndefined(p: string): Promise<Awaited<ReturnType<typeof stat>> | undefined> {
  try {
    return await stat(p);
  } catch {
    return undefined;
  }
}

/** A version's model file: `<v>/<default_model_filename>`, or `model.onnx` inside it when a folder. */
async function versionFile(
  modelDir: string,
  v: number,
  filename: string,
): Promise<string | undefined> {
  const p = path.join(modelDir, String(v), filename);
  const s = await statOrUndefined(p);
  if (s?.isFile() === true) return p;
  if (s?.isDirectory() === true) {
    const inner = path.join(p, 'model.onnx');
    if ((await statOrUndefined(inner))?.isFile() === true) return inner;
  }
  return undefined;
}

export async function resolvePair(req: PairRequest): Promise<ModelPair> {
  const repoStat = await statOrUndefined(req.modelRepository);
  if (repoStat?.isDirectory() !== true) {
    throw usage(
      `--model-repository: expected a directory, got "${req.modelRepository}" (${repoStat === undefined ? 'not found' : 'not a directory'})`,
    );
  }
  const modelDir = path.join(req.modelRepository, req.model);
  if ((await statOrUndefined(modelDir))?.isDirectory() !== true) {
    const models = (await readdir(req.modelRepository, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    throw usage(
      `--model: expected a model directory named "${req.model}" in ${req.modelRepository}, which holds ${models.length === 0 ? 'none' : models.join(', ')}`,
    );
  }
  const versions = await listVersions(modelDir);
  const candidateVersion = /^\d+$/.test(req.candidate) ? Number(req.candidate) : undefined;
  if (candidateVersion !== undefined && !versions.includes(candidateVersion)) {
    throw usage(
      `--candidate: expected a version directory of "${req.model}" or an .onnx file, got "${req.candidate}"; the model has versions ${versions.join(', ') || 'none'}`,
    );
  }
  let candidateFile: string | undefined;
  if (candidateVersion === undefined) {
    const s = await statOrUndefined(req.candidate);
    if (!req.candidate.endsWith('.onnx') || s?.isFile() !== true) {
      throw usage(
        `--candidate: expected a version number of "${req.model}" or the path of an .onnx file, got "${req.candidate}" (${s === undefined ? 'not found' : s.isFile() ? 'not an .onnx file' : 'not a file'})`,
      );
    }
    candidateFile = path.resolve(req.candidate);
  }
  const others = versions.filter((v) => v !== candidateVersion);
  if (req.version !== undefined) {
    if (req.version === candidateVersion) {
      throw usage(
        `--version and --candidate name the same version (${req.version}); expected two different ones`,
      );
    }
    if (!versions.includes(req.version)) {
      throw usage(
        `--version: expected a version of "${req.model}" (${versions.join(', ') || 'none'}), got ${req.version}`,
      );
    }
  }
  // First pass: the config autocompleted from the serving version if given, else from the highest
  // other version; its version policy then picks the serving version, and a second pass
  // autocompletes from that one when it differs.
  const firstGuess = req.version ?? others[others.length - 1];
  if (firstGuess === undefined) {
    throw usage(
      `--model: expected "${req.model}" to have a version besides the candidate to compare with, found ${versions.length === 0 ? 'no version directory' : `only version ${versions.join(', ')}`}`,
    );
  }
  let config = await configFrom(modelDir, req.model, firstGuess);
  let servingVersion = req.version;
  if (servingVersion === undefined) {
    const served = selectVersions(config.version_policy, others);
    servingVersion = served[served.length - 1];
    if (servingVersion === undefined) {
      throw usage(
        `--version: the version policy of "${req.model}" serves none of its versions ${others.join(', ')} (the candidate left out); name the serving version with --version`,
      );
    }
    if (servingVersion !== firstGuess)
      config = await configFrom(modelDir, req.model, servingVersion);
  }
  const servingFile = await versionFile(modelDir, servingVersion, config.default_model_filename);
  if (servingFile === undefined) {
    throw usage(
      `--version: expected ${path.join(modelDir, String(servingVersion), config.default_model_filename)}, found none`,
    );
  }
  if (candidateVersion !== undefined) {
    candidateFile = await versionFile(modelDir, candidateVersion, config.default_model_filename);
    if (candidateFile === undefined) {
      throw usage(
        `--candidate: expected ${path.join(modelDir, String(candidateVersion), config.default_model_filename)}, found none`,
      );
    }
  }
  return Object.freeze({
    modelDir,
    config,
    serving: Object.freeze({ version: servingVersion, file: servingFile }),
    candidate: Object.freeze({ version: candidateVersion, file: candidateFile as string }),
  });
}

/** The model's config, autocompleted from version `v`'s model file. */
async function configFrom(modelDir: string, model: string, v: number): Promise<ModelConfig> {
  let config: ModelConfig;
  try {
    const loaded = await loadModelConfig(modelDir, {
      backends: backendConfigRules(),
      // The autocomplete asks for the file of the highest version that has one; the same file
      // name inside version `v` is read instead.
      readModelIO: async (asked) => {
        const [, ...inside] = path.relative(modelDir, asked).split(path.sep);
        const file = path.join(modelDir, String(v), ...inside);
        if ((await statOrUndefined(file))?.isFile() !== true) {
          throw usage(`expected the model file ${file}, found none`);
        }
        return readModelIO(file);
      },
    });
    config = loaded.config;
  } catch (e) {
    if (e instanceof Error && e.name === 'UsageError') throw e;
    throw usage(
      `model "${model}": its config cannot be loaded: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (config.backend !== 'onnxruntime') {
    throw usage(
      `model "${model}": validate compares ONNX models (backend "onnxruntime"), got backend "${config.backend}"${config.platform !== '' ? ` / platform "${config.platform}"` : ''}`,
    );
  }
  return config;
}
