// The ONNX Runtime backend's autocomplete (Triton's ORT AutoCompleteConfig): when a config leaves
// out its inputs or outputs, the model file is opened and max_batch_size, dynamic_batching, input
// and output are filled from its own signature; the validated config is then checked against what
// was read (check-model-io.ts). The pipeline (config/load-model-config.ts) runs it through the
// backend's rules (`BackendConfigRules.autocomplete`), unless --disable-auto-complete-config.

import { DATATYPE_TABLE, fromOrtType } from '../../../tensor/datatypes.js';
import { fail } from '../../../errors.js';
import { ONNX_MODEL_FILENAME } from '../../../config/autocomplete.js';
import type { AutocompleteContext, BackendAutocomplete } from '../../../config/backend-rules.js';
import type {
  RawModelConfig,
  RawModelInput,
  RawModelOutput,
} from '../../../config/generated/model-config-schema.js';
import type { ModelIO, ModelIOTensor } from '../../../config/read-model-io.js';
import { checkModelAgainstConfig } from './check-model-io.js';
import { readOrtBackendConfig } from './ort-backend-config.js';

/** A raw config being filled in: the same shape with writable top-level fields. */
type Draft = { -readonly [K in keyof RawModelConfig]: RawModelConfig[K] };

/**
 * The backend's autocomplete step: reads the model file of the highest version that has it (the
 * config's default_model_filename, else model.onnx) when the config needs its inputs or outputs,
 * fills them in, and returns the check of the validated config against it. Undefined when the
 * config already lists both (the model is not opened).
 */
export async function autocompleteFromModel(
  raw: RawModelConfig,
  ctx: AutocompleteContext,
): Promise<BackendAutocomplete | undefined> {
  if (!needsModelIO(raw)) return undefined;
  const file = raw.default_model_filename ?? ONNX_MODEL_FILENAME;
  const modelPath = await ctx.modelFile(file);
  if (modelPath === undefined) {
    throw fail(
      'CONFIG_INVALID',
      `model '${ctx.modelName}': cannot auto-complete the config: no numbered version directory of ${ctx.modelDir} contains ${file}`,
    );
  }
  const read = ctx.readModelIO ?? (await import('../../../config/read-model-io.js')).readModelIO;
  const io = await read(modelPath);
  const { defaultMaxBatchSize } = readOrtBackendConfig(ctx.backendConfig);
  const done = autocomplete(raw, io, { defaultMaxBatchSize });
  return {
    config: done.config,
    warnings: done.warnings,
    // The model was opened anyway: check the parts of the config that were not autofilled against it.
    check: (config) => checkModelAgainstConfig(config, io),
  };
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
