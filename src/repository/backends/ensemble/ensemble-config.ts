// The ensemble backend's part in the config pipeline (config/backend-rules.ts): platform "ensemble"
// with no backend, no instances of its own, and the rules its config must meet on its own (Triton's
// ValidateEnsembleSchedulingConfig): `ensemble_scheduling` is set (config/validate.ts refuses it on
// any other platform, for every model); every step names a model and
// maps at least one input and one output; every tensor a step reads is an ensemble input or some
// step's output; no tensor is written twice or written over an ensemble input; every ensemble
// output is written; the steps form no cycle. Whether the step models exist and agree on types and
// shapes is checked when the ensemble starts, against the models then serving (check-ensemble.ts).

import { ENSEMBLE_PLATFORM } from '../../../config/autocomplete.js';
import type { BackendConfigRules } from '../../../config/backend-rules.js';
import type { ModelConfig } from '../../../config/model-config.js';
import { fail } from '../../../errors.js';
import {
  refuseOptionalWhenBatching,
  refuseOrtlessDatatype,
} from '../../../execution/onnxruntime/config/ort-config-rules.js';

const invalid = (message: string): Error => fail('CONFIG_INVALID', message);

export const ENSEMBLE_CONFIG_RULES: BackendConfigRules = Object.freeze<BackendConfigRules>({
  backend: '',
  platforms: Object.freeze([ENSEMBLE_PLATFORM]),
  // Its steps' models may be decoupled or not; an ensemble answers each request once.
  mayBeDecoupled: false,
  // An ensemble runs nothing itself: its steps run on their models' instances.
  // ONNX Runtime's two tensor rules have always applied to every model (ort-config-rules.ts).
  checkTensorType: refuseOrtlessDatatype,
  checkTensor: refuseOptionalWhenBatching,
  checkScheduling: validateEnsemble,
});

/** The rules of an ensemble's own config (platform "ensemble"), in Triton's order. */
export function validateEnsemble(config: ModelConfig): void {
  const name = config.name;
  const es = config.ensemble_scheduling;
  if (es === undefined || es.step.length === 0) {
    throw invalid(
      `ensemble scheduling must be set for ensemble '${name}' whose platform is ensemble, with at least one step`,
    );
  }
  if (config.dynamic_batching !== undefined || config.sequence_batching !== undefined) {
    throw invalid(
      `ensemble '${name}' cannot have dynamic_batching or sequence_batching: each step's model batches its own requests`,
    );
  }
  const inputs = new Set(config.input.map((t) => t.name));
  const writer = new Map<string, number>();
  es.step.forEach((step, i) => {
    const at = `step ${i} of ensemble '${name}'`;
    if (step.model_name === '') throw invalid(`must specify 'model_name' in ${at}`);
    if (step.model_name === name) throw invalid(`${at} names the ensemble itself`);
    if (Object.keys(step.input_map).length === 0)
      throw invalid(`must specify 'input_map' in ${at}`);
    if (Object.keys(step.output_map).length === 0) {
      throw invalid(`must specify 'output_map' in ${at}`);
    }
    for (const tensor of Object.values(step.output_map)) {
      if (inputs.has(tensor)) {
        throw invalid(`${at} writes ensemble tensor '${tensor}', which is an ensemble input`);
      }
      const other = writer.get(tensor);
      if (other !== undefined) {
        throw invalid(
          `ensemble tensor '${tensor}' can appear in an output map only once for ensemble '${name}': steps ${other} and ${i} both write it`,
        );
      }
      writer.set(tensor, i);
    }
  });
  es.step.forEach((step, i) => {
    for (const [modelInput, tensor] of Object.entries(step.input_map)) {
      if (!inputs.has(tensor) && !writer.has(tensor)) {
        throw invalid(
          `step ${i} of ensemble '${name}' maps input '${modelInput}' of model '${step.model_name}' to ensemble tensor '${tensor}', which is neither an ensemble input nor written by any step`,
        );
      }
    }
  });
  for (const t of config.output) {
    if (!writer.has(t.name)) {
      throw invalid(`ensemble output '${t.name}' of ensemble '${name}' is not written by any step`);
    }
  }
  const order = stepOrder(config);
  if (order.length < es.step.length) {
    const stuck = es.step.map((_, i) => i).filter((i) => !order.includes(i));
    throw invalid(
      `ensemble '${name}' has a cycle: steps ${stuck.join(', ')} each wait for a tensor that one of them writes`,
    );
  }
}

/**
 * The steps in an order where each runs after the steps writing its inputs (Kahn's algorithm);
 * shorter than the step list when the steps form a cycle.
 */
export function stepOrder(config: ModelConfig): number[] {
  const steps = config.ensemble_scheduling?.step ?? [];
  const available = new Set(config.input.map((t) => t.name));
  const order: number[] = [];
  const done = new Set<number>();
  for (let progressed = true; progressed;) {
    progressed = false;
    steps.forEach((step, i) => {
      if (done.has(i) || !Object.values(step.input_map).every((t) => available.has(t))) return;
      done.add(i);
      order.push(i);
      for (const t of Object.values(step.output_map)) available.add(t);
      progressed = true;
    });
  }
  return order;
}
