// Does the ONNX model match its config? The ORT backend's ValidateInputs / ValidateOutputs /
// CompareDimsSupported (onnxruntime.cc, onnxruntime_utils.cc) as a pure function of the config and the
// model's signature. The ORT autocomplete (ort-autocomplete.ts) runs it whenever it read the model;
// the backend runs it on each instance's session (repository/backends/onnxruntime/); a worker can run
// it on its session's metadata otherwise.

import { DATATYPE_TABLE, fromConfigType } from '../../../tensor/datatypes.js';
import { fail } from '../../../errors.js';
import type { ModelConfig, ModelTensorConfig } from '../../../config/model-config.js';
import type { ModelIO, ModelIOTensor } from '../../../config/read-model-io.js';

const shapeText = (dims: readonly number[]): string => `[${dims.join(',')}]`;
const dimOf = (d: number | string): number => (typeof d === 'number' && d >= 0 ? d : -1);

/** Throws CONFIG_INVALID naming the first tensor whose name, type or shape differs from the model. */
export function checkModelAgainstConfig(config: ModelConfig, io: ModelIO): void {
  const model = config.name;
  const invalid = (message: string): Error =>
    fail('CONFIG_INVALID', `unable to load model '${model}', ${message}`);
  // A sequence model's control and state tensors are model inputs (and state outputs) that the
  // sequence batcher fills: they count, and must exist in the model.
  const sb = config.sequence_batching;
  const controlInputs = (sb?.control_input ?? []).map((c) => c.name);
  const stateInputs = (sb?.state ?? []).map((st) => st.input_name);
  const expected = config.input.length + controlInputs.length + stateInputs.length;
  if (io.inputs.length !== expected) {
    throw invalid(
      sb === undefined
        ? `configuration expects ${config.input.length} inputs, model provides ${io.inputs.length}`
        : `configuration expects ${expected} inputs (${config.input.length} inputs, ${controlInputs.length} control inputs, ${stateInputs.length} state inputs), model provides ${io.inputs.length}`,
    );
  }
  const modelInputs = new Set(io.inputs.map((t) => t.name));
  const modelOutputs = new Set(io.outputs.map((t) => t.name));
  for (const [names, have, what] of [
    [controlInputs, modelInputs, 'control input'],
    [stateInputs, modelInputs, 'state input'],
    [(sb?.state ?? []).map((st) => st.output_name), modelOutputs, 'state output'],
  ] as const) {
    for (const n of names) {
      if (!have.has(n)) {
        throw invalid(
          `sequence batching ${what} '${n}' is not a tensor of the model, which has ${[...have].sort().join(', ')}`,
        );
      }
    }
  }
  for (const [role, configured, actual] of [
    ['input', config.input, io.inputs],
    ['output', config.output, io.outputs],
  ] as const) {
    const byName = new Map(actual.map((t) => [t.name, t]));
    for (const t of configured) {
      const m = byName.get(t.name);
      if (m === undefined) {
        throw fail(
          'CONFIG_INVALID',
          `unexpected inference ${role} '${t.name}' for model '${model}', allowed ${role}s are: ${[...byName.keys()].sort().join(', ')}`,
        );
      }
      checkType(invalid, role, t, m);
      checkShape(model, invalid, role, t, m, config.max_batch_size);
    }
  }
}

function checkType(
  invalid: (m: string) => Error,
  role: string,
  t: ModelTensorConfig,
  m: ModelIOTensor,
): void {
  const configured = fromConfigType(t.data_type);
  const ort = configured === undefined ? null : DATATYPE_TABLE[configured].ort;
  if (ort !== m.ortType) {
    throw invalid(
      `configuration expects datatype ${t.data_type} for ${role} '${t.name}', model provides ONNX type ${m.ortType}`,
    );
  }
}

function checkShape(
  model: string,
  invalid: (m: string) => Error,
  role: 'input' | 'output',
  t: ModelTensorConfig,
  m: ModelIOTensor,
  maxBatchSize: number,
): void {
  // With a reshape, the model sees the reshaped shape.
  const dims = t.reshape?.shape ?? t.dims;
  const modelShape = m.shape.map(dimOf);
  if (role === 'input' && t.allow_ragged_batch === true) {
    if (modelShape.length !== 1 || modelShape[0] !== -1) {
      throw invalid(
        `configuration expects model provides input with shape [-1] for ragged input '${t.name}', model provides ${shapeText(modelShape)}`,
      );
    }
    return;
  }
  if (modelShape.length === 0) {
    // A scalar model tensor: the config may only say 1s.
    if (dims.some((d) => d !== 1)) {
      throw invalid(
        `scalar tensor '${t.name}', should only provide 1 in the model configuration when the model doesn't support batching. Model configuration provided: ${shapeText(dims)}.`,
      );
    }
    return;
  }
  // Inputs may narrow a model's dynamic dim to a fixed one; outputs must match exactly.
  const exact = role === 'output';
  const full = maxBatchSize > 0 ? [-1, ...dims] : [...dims];
  if (maxBatchSize > 0 && modelShape[0] !== -1) {
    throw fail(
      'CONFIG_INVALID',
      `model '${model}', tensor '${t.name}': for the model to support batching the shape should have at least 1 dimension and the first dimension must be -1; but shape expected by the model is ${shapeText(modelShape)}`,
    );
  }
  const same =
    modelShape.length === full.length &&
    modelShape.every((d, i) => (!exact && d === -1) || d === full[i]);
  if (!same) {
    throw fail(
      'CONFIG_INVALID',
      `model '${model}', tensor '${t.name}': the model expects ${modelShape.length} dimensions (shape ${shapeText(modelShape)}) but the model configuration specifies ${full.length} dimensions (${maxBatchSize > 0 ? 'an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape' : 'shape'} ${shapeText(full)})`,
    );
  }
}
