// Autocomplete: fills what config.pbtxt leaves out, as Triton does. `autocompleteCoreFields` is core's
// rule (name, backend, platform, default_model_filename; always runs); `autocomplete` is the ONNX
// Runtime backend's (max_batch_size, dynamic_batching, input, output from the model's own signature;
// skipped with --disable-auto-complete-config). Both are pure: they return a new raw config.

import { DATATYPE_TABLE, fromOrtType } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import type {
  RawModelConfig,
  RawModelInput,
  RawModelOutput,
} from './generated/model-config-schema.js';
import type { ModelIO, ModelIOTensor } from './read-model-io.js';

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

/**
 * True when the ORT backend would read the model to autocomplete: unless the config already lists
 * at least one input (or batch_input) and at least one output.
 */
export function needsModelIO(raw: RawModelConfig): boolean {
  const inputs = (raw.input?.length ?? 0) + (raw.batch_input?.length ?? 0);
  return !(inputs > 0 && (raw.output?.length ?? 0) > 0);
}

export interface AutocompleteOptions {
  /** `--backend-config=default-max-batch-size`; Triton's default is 4. */
  readonly defaultMaxBatchSize: number;
}

export interface AutocompleteResult {
  readonly config: RawModelConfig;
  /** Messages Triton logs at WARN level (e.g. "autofilled max_batch_size to 4 ..."). */
  readonly warnings: readonly string[];
}

/** A dim as autocomplete sees it: fixed sizes stay, symbolic or negative dims become -1. */
function dimOf(d: number | string): number {
  return typeof d === 'number' && d >= 0 ? d : -1;
}

/**
 * The ORT backend's AutoCompleteConfig (onnxruntime.cc AutoCompleteMaxBatch / AutoCompleteIO).
 * The model can batch only if every input and output has rank >= 1 and a dynamic first dim. Then a
 * missing or 0 max_batch_size becomes `defaultMaxBatchSize`, and `dynamic_batching {}` is added when
 * max_batch_size > 1 and no scheduler is set. A model that cannot batch with max_batch_size > 0 is
 * an error. Missing input/output lists are filled in the model's order (Triton's order is that of an
 * unordered map; the model's own order is more useful and equally valid).
 */
export function autocomplete(
  raw: RawModelConfig,
  modelIO: ModelIO,
  options: AutocompleteOptions,
): AutocompleteResult {
  if (!needsModelIO(raw)) return { config: raw, warnings: [] };
  const name = raw.name ?? '';
  const warnings: string[] = [];
  const out: Draft = { ...raw };

  const all = [...modelIO.inputs, ...modelIO.outputs];
  const canBatch = all.every(
    (t) => t.shape.length > 0 && dimOf(t.shape[0] as number | string) === -1,
  );
  let maxBatchSize = out.max_batch_size ?? 0;
  if (canBatch) {
    if (maxBatchSize === 0) {
      maxBatchSize = Math.max(options.defaultMaxBatchSize, 0);
      out.max_batch_size = maxBatchSize;
      warnings.push(
        `autofilled max_batch_size to ${maxBatchSize} for model '${name}' since batching is supported but no max_batch_size is specified in model configuration. Must specify max_batch_size to utilize autofill with a larger max batch size`,
      );
    }
    if (
      maxBatchSize > 1 &&
      out.dynamic_batching === undefined &&
      out.sequence_batching === undefined
    ) {
      out.dynamic_batching = {};
    }
  } else if (maxBatchSize !== 0) {
    throw fail(
      'CONFIG_INVALID',
      `autofill failed for model '${name}': model does not support batching while non-zero max_batch_size is specified (max_batch_size: ${maxBatchSize}; every model input and output needs a dynamic first dimension, got ${all.map(describe).join(', ')})`,
    );
  }

  // A sequence model's ONNX inputs include its control and state tensors, which the sequence
  // batcher fills, so its inputs and outputs are never filled in from the model (as in Triton).
  const sequence = raw.sequence_batching !== undefined;
  if (!sequence && (raw.input?.length ?? 0) === 0) {
    out.input = modelIO.inputs.map((t): RawModelInput =>
      tensorConfig(name, 'input', t, maxBatchSize),
    );
  }
  if (!sequence && (raw.output?.length ?? 0) === 0) {
    out.output = modelIO.outputs.map((t): RawModelOutput =>
      tensorConfig(name, 'output', t, maxBatchSize),
    );
  }
  return { config: out, warnings };
}

function describe(t: ModelIOTensor): string {
  return `${t.name} [${t.shape.map((d) => (typeof d === 'number' ? d : d === '' ? '?' : d)).join(',')}]`;
}

/** name, data_type and dims of one model tensor; dims lose the batch dim when batching. */
function tensorConfig(
  model: string,
  role: 'input' | 'output',
  t: ModelIOTensor,
  maxBatchSize: number,
): RawModelInput & RawModelOutput {
  const datatype = fromOrtType(t.ortType);
  if (datatype === undefined) {
    throw fail(
      'UNSUPPORTED',
      `autofill failed for model '${model}': ${role} "${t.name}" has ONNX element type "${t.ortType}", which infernode cannot serve`,
    );
  }
  const dims = t.shape.slice(maxBatchSize > 0 ? 1 : 0).map(dimOf);
  const base = { name: t.name, data_type: DATATYPE_TABLE[datatype].config };
  if (dims.length > 0) return { ...base, dims };
  // A scalar (or, when batching, a [batch] tensor) is written as dims [1]; a batching model also
  // gets an empty reshape so the model sees shape [batch]. Triton omits the reshape otherwise, since
  // an empty reshape on a non-batching model would mean a scalar, which configs cannot express.
  return maxBatchSize > 0 ? { ...base, dims: [1], reshape: { shape: [] } } : { ...base, dims: [1] };
}
