// Resolves `sequence_batching.state` into the batcher's StateSpecs: datatypes through the one
// datatype table, and each `initial_state` with a `data_file` read once, at load, from
// `<model>/initial_state/` (as Triton reads it), with its size checked against the state's dims.
// The file must stay inside that directory: no `..`, no symbolic link out of it.

import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { SequenceBatchingConfig } from '../../config/model-config.js';
import { fail } from '../../errors.js';
import { fromConfigType } from '../../tensor/datatypes.js';
import type { StateSpec } from './state-store.js';

export function stateSpecs(
  model: string,
  sb: SequenceBatchingConfig,
  modelDir?: string,
): StateSpec[] {
  return sb.state.map((s) => {
    const datatype = fromConfigType(s.data_type);
    if (datatype === undefined) throw fail('INTERNAL', `state '${s.input_name}' has no datatype`);
    const file = s.initial_state[0]?.data_file;
    return {
      inputName: s.input_name,
      outputName: s.output_name,
      datatype,
      dims: s.dims,
      ...(file !== undefined &&
        file !== '' && { initial: readInitialState(model, s.input_name, file, modelDir) }),
    };
  });
}

function readInitialState(
  model: string,
  state: string,
  file: string,
  modelDir?: string,
): Uint8Array {
  const what = `initial state data_file "${file}" of state '${state}' (model '${model}')`;
  if (modelDir === undefined) {
    throw fail('CONFIG_INVALID', `${what}: the model has no directory to read it from`);
  }
  const dir = path.join(modelDir, 'initial_state');
  const full = path.join(dir, file);
  try {
    if (
      lstatSync(full).isSymbolicLink() &&
      !realpathSync(full).startsWith(realpathSync(dir) + path.sep)
    ) {
      throw new Error('it links outside <model>/initial_state');
    }
    return new Uint8Array(readFileSync(full));
  } catch (e) {
    throw fail(
      'CONFIG_INVALID',
      `${what} cannot be read from <model>/initial_state: ${e instanceof Error ? e.message.replace(modelDir, '<model>') : String(e)}`,
    );
  }
}
