// The load-time check of an ensemble against the models its steps name, as they serve now (Triton
// checks the same when the ensemble loads): each step's model serves; each mapped name is one of
// its inputs or outputs; every ensemble tensor has one datatype and compatible shapes wherever it
// is read or written; a batching ensemble's steps batch at least as far.

import { fail } from '../../../errors.js';
import type { ModelConfig } from '../../../config/model-config.js';
import { stepOrder } from './ensemble-config.js';
import { fromConfigType, type Datatype } from '../../../tensor/datatypes.js';
import { fullDims, type ModelSignature } from '../../model-signature.js';
import { stepVersion, type EnsembleHost } from './ensemble-host.js';

interface TensorType {
  readonly datatype: Datatype;
  /** Full dims (batch dim first when batching); -1 = any. */
  readonly dims: readonly number[];
  /** Where it comes from, for messages. */
  readonly from: string;
}

const text = (dims: readonly number[]): string => `[${dims.join(',')}]`;
const compatible = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((d, i) => d === -1 || b[i] === -1 || d === b[i]);

export function checkEnsemble(config: ModelConfig, host: EnsembleHost): void {
  const name = config.name;
  const invalid = (m: string): Error => fail('CONFIG_INVALID', `ensemble '${name}': ${m}`);
  const lead = (dims: readonly number[]): number[] =>
    config.max_batch_size > 0 ? [-1, ...dims] : [...dims];
  const types = new Map<string, TensorType>();
  for (const t of config.input) {
    types.set(t.name, {
      datatype: fromConfigType(t.data_type) as Datatype,
      dims: lead(t.dims),
      from: `ensemble input '${t.name}'`,
    });
  }
  const steps = config.ensemble_scheduling?.step ?? [];
  for (const i of stepOrder(config)) {
    const step = steps[i];
    if (step === undefined) continue;
    const at = `step ${i} (model '${step.model_name}')`;
    let sig: ModelSignature;
    try {
      sig = host.signature(step.model_name, stepVersion(step.model_version));
    } catch (e) {
      throw invalid(
        `${at} cannot be used: ${e instanceof Error ? e.message : String(e)}; load the model first`,
      );
    }
    if (sig.decoupled === true) {
      throw invalid(
        `${at} is decoupled (model_transaction_policy { decoupled: true }): an ensemble step ` +
          `must answer each request with exactly one response`,
      );
    }
    if (config.max_batch_size > sig.maxBatchSize) {
      throw invalid(
        `${at} has max_batch_size ${sig.maxBatchSize}, less than the ensemble's ${config.max_batch_size}`,
      );
    }
    for (const [input, tensor] of Object.entries(step.input_map)) {
      const t = sig.inputs.get(input);
      if (t === undefined) {
        throw invalid(
          `${at} has no input '${input}' (its inputs: ${[...sig.inputs.keys()].join(', ')})`,
        );
      }
      const have = types.get(tensor) as TensorType;
      const want = fullDims(sig, t);
      if (have.datatype !== t.datatype || !compatible(have.dims, want)) {
        throw invalid(
          `ensemble tensor '${tensor}' is ${have.datatype} ${text(have.dims)} from ${have.from}, but input '${input}' of ${at} takes ${t.datatype} ${text(want)}`,
        );
      }
    }
    for (const [output, tensor] of Object.entries(step.output_map)) {
      const t = sig.outputs.get(output);
      if (t === undefined) {
        throw invalid(
          `${at} has no output '${output}' (its outputs: ${[...sig.outputs.keys()].join(', ')})`,
        );
      }
      types.set(tensor, {
        datatype: t.datatype,
        dims: fullDims(sig, t),
        from: `output '${output}' of ${at}`,
      });
    }
  }
  for (const t of config.output) {
    const have = types.get(t.name) as TensorType;
    const want = lead(t.dims);
    const datatype = fromConfigType(t.data_type) as Datatype;
    if (have.datatype !== datatype || !compatible(have.dims, want)) {
      throw invalid(
        `ensemble output '${t.name}' is configured as ${datatype} ${text(want)}, but ${have.from} gives ${have.datatype} ${text(have.dims)}`,
      );
    }
  }
}
