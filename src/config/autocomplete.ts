// Autocomplete, core's part: fills what config.pbtxt leaves out of the fields Triton core fills for
// every model (name, backend, platform, default_model_filename; always runs), with Triton's own
// platform and backend names. It is pure: it returns a new raw config. A backend's own autocomplete
// (ONNX Runtime's, from the model file: execution/onnxruntime/config/ort-autocomplete.ts) runs after
// it, through the backend's rules (`BackendConfigRules.autocomplete`).

import type { RawModelConfig } from './generated/model-config-schema.js';

/** A raw config being filled in: the same shape with writable top-level fields. */
type Draft = { -readonly [K in keyof RawModelConfig]: RawModelConfig[K] };

export const ONNXRUNTIME_BACKEND = 'onnxruntime';
export const ONNXRUNTIME_PLATFORM = 'onnxruntime_onnx';
export const ONNX_MODEL_FILENAME = 'model.onnx';
/** Triton's platform for a model made of other models' steps (`ensemble_scheduling`). */
export const ENSEMBLE_PLATFORM = 'ensemble';
/** Triton's `default-max-batch-size` backend config default (core backend_model.cc). */
export const DEFAULT_MAX_BATCH_SIZE = 4;

export interface CoreFieldsContext {
  /** The model directory's name. */
  readonly modelName: string;
  /** True when a version directory holds `model.onnx` (a file, or a directory of an external-data model). */
  readonly versionHasOnnxModel: boolean;
  /**
   * For a backend whose config rules name its model files (`BackendConfigRules.modelFilenames`,
   * e.g. JavaScript's `model.js`, `model.mjs`): the first that a version directory holds, else the
   * first of them; the default_model_filename when the config sets none.
   */
  readonly backendModelFilename?: string;
}

/**
 * Core's AutoCompleteBackendFields, ONNX part: name from the directory; backend `onnxruntime` when
 * the platform says `onnxruntime_onnx`, the default file is `model.onnx`, or (nothing else given) a
 * version directory holds `model.onnx`; then platform and default_model_filename from the backend.
 * A backend whose rules name its model files gets the one the loader found (JavaScript: `model.js`,
 * or `model.mjs` when that is what it has).
 * Other backends are left as written; validation rejects them with a clear message.
 */
export function autocompleteCoreFields(
  raw: RawModelConfig,
  ctx: CoreFieldsContext,
): RawModelConfig {
  const out: Draft = { ...raw };
  if (!out.name) out.name = ctx.modelName;
  if (!out.backend) {
    const platform = out.platform ?? '';
    const file = out.default_model_filename ?? '';
    if (
      platform === ONNXRUNTIME_PLATFORM ||
      file === ONNX_MODEL_FILENAME ||
      (platform === '' && file === '' && ctx.versionHasOnnxModel)
    ) {
      out.backend = ONNXRUNTIME_BACKEND;
    }
  }
  if (out.backend === ONNXRUNTIME_BACKEND) {
    if (!out.platform) out.platform = ONNXRUNTIME_PLATFORM;
    if (!out.default_model_filename) out.default_model_filename = ONNX_MODEL_FILENAME;
  }
  if (!out.default_model_filename && ctx.backendModelFilename !== undefined) {
    out.default_model_filename = ctx.backendModelFilename;
  }
  return out;
}
