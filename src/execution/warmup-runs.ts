// The `model_warmup` samples of a config as the WarmupRun requests every worker of the instance pool
// runs before it reports ready: one request per sample, its inputs in one shared-memory block, each
// input zero_data, random_data, or one sample read from its input_data_file (`<model>/warmup/`).

import { randomFillSync } from 'node:crypto';
import type { ModelConfig, ModelWarmupConfig } from '../config/model-config.js';
import { fail } from '../errors.js';
import { TensorBlock, type SlotSpec } from '../memory/tensor-block.js';
import { BYTES_PREFIX } from '../tensor/bytes-layout.js';
import { fromConfigType } from '../tensor/datatypes.js';
import { elementCount } from '../tensor/shape.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import type { WarmupRun } from './messages.js';
import { readWarmupFile } from './warmup-file.js';

export interface WarmupRuns {
  /** In config order; the caller keeps them (and so their memory) until the pool has started. */
  readonly runs: readonly WarmupRun[];
}

export interface WarmupOptions {
  /** The model's directory in the repository: input_data_file is read from its `warmup/`. */
  readonly modelDir: string;
}

/**
 * Every sample as a run. Rejects when an input_data_file cannot be used (see readWarmupFile): the
 * load fails before any worker starts, naming the sample, the input and the file.
 */
export async function buildWarmupRuns(
  config: Pick<ModelConfig, 'name' | 'max_batch_size' | 'model_warmup'>,
  options: WarmupOptions,
): Promise<WarmupRuns> {
  const runs: WarmupRun[] = [];
  for (const sample of config.model_warmup) {
    runs.push({
      name: sample.name,
      count: sample.count,
      request: { inputs: await sampleInputs(config, sample, options), outputs: [] },
    });
  }
  return { runs };
}

/** One input of a sample before its block exists: what its slot holds and where its data comes from. */
interface SampleInput {
  readonly spec: SlotSpec;
  readonly random: boolean;
  /** One row read from input_data_file, copied into each of `rows` rows. */
  readonly row?: Uint8Array;
  readonly rows: number;
}

/**
 * The sample's inputs in one zero-filled block. Triton sends `batch_size` one-row requests that the
 * backend runs as one batch; a worker takes one request, so the sample is one request of
 * `batch_size` rows (no batch dim when the model does not batch: validation kept batch_size 1).
 * An input_data_file holds one row, as in Triton, where each of those requests carries the file.
 */
async function sampleInputs(
  config: Pick<ModelConfig, 'name' | 'max_batch_size'>,
  sample: ModelWarmupConfig,
  options: WarmupOptions,
): Promise<readonly TensorDescriptor[]> {
  const inputs = await Promise.all(
    Object.entries(sample.inputs).map(async ([name, input]): Promise<SampleInput> => {
      const datatype = fromConfigType(input.data_type);
      if (datatype === undefined) {
        throw fail(
          'INTERNAL',
          `model '${config.name}' warmup sample '${sample.name}' input '${name}' has data_type ${input.data_type}`,
        );
      }
      const rows = config.max_batch_size > 0 ? sample.batch_size : 1;
      const shape = config.max_batch_size > 0 ? [rows, ...input.dims] : [...input.dims];
      const random = input.random_data === true;
      if (input.input_data_file !== undefined) {
        const row = await readWarmupFile(options.modelDir, {
          model: config.name,
          sample: sample.name,
          input: name,
          file: input.input_data_file,
          datatype,
          dims: input.dims,
        });
        const byteLength = datatype === 'BYTES' ? row.byteLength * rows : undefined;
        return { spec: { name, datatype, shape, byteLength }, random, row, rows };
      }
      // Zero BYTES data is every element empty: a zero length prefix each.
      const byteLength = datatype === 'BYTES' ? elementCount(shape) * BYTES_PREFIX : undefined;
      return { spec: { name, datatype, shape, byteLength }, random, rows };
    }),
  );
  const block = TensorBlock.allocate(inputs.map((i) => i.spec));
  inputs.forEach((input, slot) => {
    const datatype = input.spec.datatype;
    if (input.row !== undefined) {
      for (let r = 0; r < input.rows; r++) block.write(slot, input.row, r * input.row.byteLength);
      return;
    }
    // Random BYTES data is zero data, as in Triton: random bytes would not be valid elements.
    if (!input.random || datatype === 'BYTES') return;
    const bytes = block.bytes(slot);
    randomFillSync(bytes);
    // A BOOL element is one byte holding 0 or 1.
    if (datatype === 'BOOL') for (let i = 0; i < bytes.length; i++) bytes[i] = (bytes[i] ?? 0) & 1;
  });
  return block.descriptors;
}
