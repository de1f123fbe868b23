// Model directories on disk for loadModelConfig tests: a temporary repository per test file, files
// written from a path -> content table, and model readers that record or refuse being called.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import '../../helpers/ort-telemetry-off.js';
import {
  loadModelConfig,
  type LoadedModelConfig,
  type LoadModelConfigOptions,
} from '../../../src/config/load-model-config.js';
import type { ModelIO } from '../../../src/config/read-model-io.js';
import { InferenceServerError } from '../../../src/errors.js';
import type { BoundBackend } from '../../../src/repository/backends/backend.js';
import { backendConfigRules, backendFor } from '../../../src/repository/backends/registry.js';

export const BATCHABLE: ModelIO = {
  inputs: [{ name: 'x', ortType: 'float32', shape: ['batch', 3] }],
  outputs: [{ name: 'y', ortType: 'float32', shape: ['batch', 3] }],
};

export interface TempRepository {
  /** The repository directory (set once the file's `before` hook has run). */
  root(): string;
  /** Creates `<root>/<name>` with the given files (path -> content; a trailing '/' makes a directory). */
  model(name: string, files: Readonly<Record<string, string | Uint8Array>>): Promise<string>;
}

/**
 * A temporary repository, created (and filled by `populate`) before the calling file's tests and
 * removed after them. Filling it here, not in a second hook, keeps the two in order.
 */
export function tempRepository(
  prefix: string,
  populate?: (root: string) => Promise<void>,
): TempRepository {
  let root = '';
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), prefix));
    await populate?.(root);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return {
    root: () => root,
    async model(name, files) {
      const dir = path.join(root, name);
      for (const [rel, content] of Object.entries(files)) {
        const p = path.join(dir, rel);
        if (rel.endsWith('/')) {
          await mkdir(p, { recursive: true });
        } else {
          await mkdir(path.dirname(p), { recursive: true });
          await writeFile(p, content);
        }
      }
      return dir;
    },
  };
}

/** A reader that records the paths it was asked for. */
export function recorder(io: ModelIO = BATCHABLE): {
  read: (p: string) => Promise<ModelIO>;
  paths: string[];
} {
  const paths: string[] = [];
  return {
    paths,
    read: (p: string) => {
      paths.push(p);
      return Promise.resolve(io);
    },
  };
}

export const neverRead = (): Promise<ModelIO> =>
  Promise.reject(new Error('the model must not be opened'));

/**
 * The config pipeline, then its backend's reading of the backend's own settings (ORT parameters,
 * JavaScript timeouts): what configureModel does before it looks for version files.
 */
export async function loadAndBind(
  dir: string,
  options: Omit<LoadModelConfigOptions, 'backends'> = {},
): Promise<{ loaded: LoadedModelConfig; bound: BoundBackend; warnings: readonly string[] }> {
  const loaded = await loadModelConfig(dir, { ...options, backends: backendConfigRules() });
  const bound = backendFor(loaded.config).bind(loaded);
  return { loaded, bound, warnings: [...loaded.warnings, ...bound.warnings] };
}

/** The error of the config pipeline or of its backend's reading (loadAndBind). */
export async function loadError(
  dir: string,
  options: Omit<LoadModelConfigOptions, 'backends'> = {},
): Promise<InferenceServerError> {
  try {
    await loadAndBind(dir, options);
  } catch (e) {
    assert.ok(e instanceof InferenceServerError, String(e));
    return e;
  }
  assert.fail('expected loadModelConfig or its backend to fail');
}
