// The rules a normalized `sequence_batching` must meet: each control well formed and named once,
// implicit state with fixed dims and at most one initial state, strategy settings in range. Triton
// checks most of this when the sequence batcher is built (sequence_batch_scheduler.cc,
// sequence_state.cc); here a config that cannot run fails at load with the field it names.

import { fail } from '../errors.js';
import type { ModelConfig, SequenceBatchingConfig, SequenceControlConfig } from './model-config.js';

const invalid = (message: string): Error => fail('CONFIG_INVALID', message);

const CORRID_TYPES = new Set([
  'TYPE_UINT64',
  'TYPE_INT64',
  'TYPE_UINT32',
  'TYPE_INT32',
  'TYPE_STRING',
]);

export function validateSequenceBatching(config: ModelConfig): void {
  const sb = config.sequence_batching;
  if (sb === undefined) return;
  const model = config.name;
  const taken = new Map<string, string>();
  for (const t of config.input) taken.set(t.name, 'a model input');
  for (const t of config.output) taken.set(t.name, 'a model output');
  const claim = (name: string, what: string): void => {
    if (name === '') throw invalid(`${what} of model ${model} must specify a name`);
    const other = taken.get(name);
    if (other !== undefined) {
      throw invalid(`${what} '${name}' of model ${model} has the same name as ${other}`);
    }
    taken.set(name, what);
  };
  validateControls(model, sb, claim);
  validateStates(config, sb, claim);
  const oldest = sb.oldest;
  if (oldest !== undefined) {
    for (const size of oldest.preferred_batch_size) {
      if (size <= 0 || size > Math.max(config.max_batch_size, 1)) {
        throw invalid(
          `sequence batching oldest preferred_batch_size must be in [1, max_batch_size ${config.max_batch_size}] for ${model}, got ${size}`,
        );
      }
    }
    if (oldest.max_candidate_sequences < 0) {
      throw invalid(
        `sequence batching oldest max_candidate_sequences must be >= 0 for ${model}, got ${oldest.max_candidate_sequences}`,
      );
    }
  }
  const u = sb.direct?.minimum_slot_utilization ?? 0;
  if (!(u >= 0 && u <= 1)) {
    throw invalid(
      `sequence batching direct minimum_slot_utilization must be in [0, 1] for ${model}, got ${u}`,
    );
  }
}

function validateControls(
  model: string,
  sb: SequenceBatchingConfig,
  claim: (name: string, what: string) => void,
): void {
  const kinds = new Map<string, string>();
  for (const input of sb.control_input) {
    claim(input.name, 'sequence batching control input');
    if (input.control.length !== 1) {
      throw invalid(
        `sequence batching control input '${input.name}' of model ${model} must have exactly one control, got ${input.control.length}`,
      );
    }
    const c = input.control[0] as SequenceControlConfig;
    const earlier = kinds.get(c.kind);
    if (earlier !== undefined) {
      throw invalid(
        `sequence batching for model ${model}: ${c.kind} is given by both '${earlier}' and '${input.name}'; a control kind may be used once`,
      );
    }
    kinds.set(c.kind, input.name);
    const pairs = [c.int32_false_true, c.fp32_false_true, c.bool_false_true].filter(
      (p) => p.length > 0,
    );
    const at = `sequence batching control '${c.kind}' of input '${input.name}' for model ${model}`;
    if (c.kind === 'CONTROL_SEQUENCE_CORRID') {
      if (pairs.length > 0 || c.data_type === undefined || !CORRID_TYPES.has(c.data_type)) {
        throw invalid(
          `${at} must specify data_type TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 or TYPE_STRING and no false/true values, got data_type ${c.data_type ?? 'none'}`,
        );
      }
      continue;
    }
    if (pairs.length !== 1 || (pairs[0] as readonly unknown[]).length !== 2) {
      throw invalid(
        `${at} must specify exactly one of int32_false_true, fp32_false_true or bool_false_true with 2 values (false, then true), got ${pairs.map((p) => p.length).join(' and ') || 'none'}`,
      );
    }
    if (c.data_type !== undefined) {
      throw invalid(`${at} must not specify data_type (it follows the false/true values)`);
    }
  }
}

function validateStates(
  config: ModelConfig,
  sb: SequenceBatchingConfig,
  claim: (name: string, what: string) => void,
): void {
  const model = config.name;
  for (const s of sb.state) {
    claim(s.input_name, 'sequence batching state input');
    claim(s.output_name, 'sequence batching state output');
    const at = `state '${s.input_name}' of model ${model}`;
    if (s.data_type === 'TYPE_STRING') {
      throw fail(
        'UNSUPPORTED',
        `model '${model}': ${at} has data_type TYPE_STRING; implicit state is kept in fixed-size slots, so it must be a numeric type`,
      );
    }
    if (s.dims.length === 0 || s.dims.some((d) => !Number.isSafeInteger(d) || d < 1)) {
      throw fail(
        'UNSUPPORTED',
        `model '${model}': ${at} must have fixed dims >= 1 (growable state is not supported), got [${s.dims.join(',')}]`,
      );
    }
    if (s.initial_state.length > 1) {
      throw invalid(`${at} may specify one initial_state, got ${s.initial_state.length}`);
    }
    const init = s.initial_state[0];
    if (init === undefined) continue;
    if (init.data_type !== s.data_type || init.dims.join(',') !== s.dims.join(',')) {
      throw invalid(
        `initial state '${init.name}' of ${at} must have the state's data_type ${s.data_type} and dims [${s.dims.join(',')}], got ${init.data_type} [${init.dims.join(',')}]`,
      );
    }
    const file = init.data_file ?? '';
    if ((init.zero_data === true) === (file !== '')) {
      throw invalid(
        `initial state '${init.name}' of ${at} must specify exactly one of zero_data: true or data_file`,
      );
    }
    const parts = file.split(/[\\/]/);
    if (file.startsWith('/') || parts.includes('..') || file.includes('\0')) {
      throw invalid(
        `initial state '${init.name}' of ${at}: data_file must be a file name inside <model>/initial_state, got "${file}"`,
      );
    }
  }
}
