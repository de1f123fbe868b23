// The `model_warmup` samples of a config as the WarmupRun requests every worker of the instance pool
// runs before it reports ready: one request per sample, its inputs in one shared-memory block.
// zero_data and random_data are generated here; input_data_file samples are skipped with a warning
// until reading warmup files (`<model>/warmup/`) lands with the model-management work.

import { randomFillSync } from 'node:crypto';
import type { ModelConfig, ModelWarmupConfig } from '../config/model-config.js';
import { fail } from '../errors.js';
import { TensorBlock, type SlotSpec } from '../memory/tensor-block.js';
import { fromConfigType } from '../tensor/datatypes.js';
import { elementCount } from '../tensor/shape.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import type { WarmupRun } from './messages.js';

export interface WarmupRuns {
  /** In config order; the caller keeps them (and so their memory) until the pool has started. */
  readonly runs: readonly WarmupRun[];
  /** One line per sample that cannot run yet, saying why. */
  readonly skipped: readonly string[];
}

/** A BYTES element is a 4-byte length and its bytes: zero data is every element empty. */
const BYTES_LENGTH_PREFIX = 4;

export function buildWarmupRuns(
  config: Pick<ModelConfig, 'name' | 'max_batch_size' | 'model_warmup'>,
): WarmupRuns {
  const runs: WarmupRun[] = [];
  const skipped: string[] = [];
  for (const sample of config.model_warmup) {
    const file = Object.entries(sample.inputs).find(([, i]) => i.input_data_file !== undefined);
    if (file !== undefined) {
      skipped.push(
        `model_warmup sample '${sample.name}' is skipped: input '${file[0]}' reads ` +
          `input_data_file "${file[1].input_data_file ?? ''}", which infernode does not load yet ` +
          `(zero_data and random_data samples run)`,
      );
      continue;
    }
    runs.push({
      name: sample.name,
      count: sample.count,
      request: { inputs: sampleInputs(config, sample), outputs: [] },
    });
  }
  return { runs, skipped };
}

/**
 * The sample's inputs in one zero-filled block. Triton sends `batch_size` one-row requests that the
 * backend runs as one batch; a worker takes one request, so the sample is one request of
 * `batch_size` rows (no batch dim when the model does not batch: validation kept batch_size 1).
 */
function sampleInputs(
  config: Pick<ModelConfig, 'name' | 'max_batch_size'>,
  sample: ModelWarmupConfig,
): readonly TensorDescriptor[] {
  const inputs = Object.entries(sample.inputs);
  const specs = inputs.map(([name, input]): SlotSpec => {
    const datatype = fromConfigType(input.data_type);
    if (datatype === undefined) {
      throw fail(
        'INTERNAL',
        `model '${config.name}' warmup sample '${sample.name}' input '${name}' has data_type ${input.data_type}`,
      );
    }
    const shape = config.max_batch_size > 0 ? [sample.batch_size, ...input.dims] : [...input.dims];
    return datatype === 'BYTES'
      ? { name, datatype, shape, byteLength: elementCount(shape) * BYTES_LENGTH_PREFIX }
      : { name, datatype, shape };
  });
  const block = TensorBlock.allocate(specs);
  inputs.forEach(([, input], slot) => {
    const datatype = block.descriptor(slot).datatype;
    // Random BYTES data is zero data, as in Triton: random bytes would not be valid elements.
    if (input.random_data !== true || datatype === 'BYTES') return;
    const bytes = block.bytes(slot);
    randomFillSync(bytes);
    // A BOOL element is one byte holding 0 or 1.
    if (datatype === 'BOOL') for (let i = 0; i < bytes.length; i++) bytes[i] = (bytes[i] ?? 0) & 1;
  });
  return block.descriptors;
}
