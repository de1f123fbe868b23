// The samples a validation replays through both models, from the best source there is: recorded
// inference requests (--requests, request-files.ts), else the model's `model_warmup` samples (what
// its owner chose as representative inputs), else inputs generated from a seed
// (generated-inputs.ts). Where they came from goes into the report.

import type { ModelConfig, ModelWarmupConfig } from '../config/model-config.js';
import { decodeStringElements } from '../execution/onnxruntime/string-tensor.js';
import { readWarmupFile } from '../execution/warmup-file.js';
import { fromConfigType, numericArray } from '../tensor/datatypes.js';
import { elementCount } from '../tensor/shape.js';
import {
  generateFeeds,
  generateTensor,
  INT_RANGE,
  seededRandom,
  VARIABLE_DIM,
} from './generated-inputs.js';
import type { Random } from './generated-inputs.js';
import type { HostTensor } from '../compare/host-tensor.js';
import { MAX_REQUEST_FILES, readRequestFiles } from './request-files.js';

export interface Sample {
  readonly label: string;
  readonly rows: number;
  readonly feeds: ReadonlyMap<string, HostTensor>;
}

export interface SampleSource {
  readonly kind: 'requests' | 'warmup' | 'generated';
  /** One sentence for the report. */
  readonly description: string;
  readonly seed?: number;
}

export interface SampleSet {
  readonly source: SampleSource;
  readonly samples: readonly Sample[];
}

export async function chooseSamples(
  config: ModelConfig,
  modelDir: string,
  options: {
    readonly count: number;
    readonly seed: number;
    readonly requests?: string | undefined;
  },
): Promise<SampleSet> {
  const next = seededRandom(options.seed);
  if (options.requests !== undefined) {
    const samples = await readRequestFiles(options.requests, config);
    return {
      source: {
        kind: 'requests',
        description: `${samples.length} inference request(s) from ${options.requests}${samples.length === MAX_REQUEST_FILES ? ` (the first ${MAX_REQUEST_FILES} by file name)` : ''}`,
      },
      samples,
    };
  }
  if (config.model_warmup.length > 0) {
    const samples: Sample[] = [];
    for (const w of config.model_warmup)
      samples.push(await warmupSample(config, modelDir, w, next));
    return {
      source: {
        kind: 'warmup',
        description: `the model's ${samples.length} model_warmup sample(s) (${samples.map((s) => s.label).join(', ')}); random_data inputs generated with seed ${options.seed}`,
        seed: options.seed,
      },
      samples,
    };
  }
  const samples: Sample[] = [];
  for (let i = 0; i < options.count; i++) {
    samples.push({ label: `generated #${i}`, rows: 1, feeds: generateFeeds(config, 1, next) });
  }
  return {
    source: {
      kind: 'generated',
      description:
        `${options.count} generated input(s), one row each, seed ${options.seed}: floats uniform in [-1, 1), ` +
        `integers in [0, ${INT_RANGE}), variable dims ${VARIABLE_DIM}. The model has no model_warmup samples; ` +
        'generated inputs prove less than real ones.',
      seed: options.seed,
    },
    samples,
  };
}

/** One warmup sample as feeds: zero_data, random_data, or one row from input_data_file per row. */
async function warmupSample(
  config: ModelConfig,
  modelDir: string,
  w: ModelWarmupConfig,
  next: Random,
): Promise<Sample> {
  const rows = config.max_batch_size > 0 ? w.batch_size : 1;
  const feeds = new Map<string, HostTensor>();
  for (const [name, input] of Object.entries(w.inputs)) {
    const datatype = fromConfigType(input.data_type);
    if (datatype === undefined) throw new Error(`unvalidated data_type ${input.data_type}`);
    const dims = config.max_batch_size > 0 ? [rows, ...input.dims] : [...input.dims];
    if (input.random_data === true) {
      feeds.set(name, generateTensor(datatype, dims, next));
    } else if (input.input_data_file !== undefined) {
      const row = await readWarmupFile(modelDir, {
        model: config.name,
        sample: w.name,
        input: name,
        file: input.input_data_file,
        datatype,
        dims: input.dims,
      });
      if (datatype === 'BYTES') {
        const one = decodeStringElements(row, elementCount(input.dims), name);
        feeds.set(name, { datatype, dims, data: Array.from({ length: rows }, () => one).flat() });
      } else {
        const all = new Uint8Array(row.byteLength * rows);
        for (let r = 0; r < rows; r++) all.set(row, r * row.byteLength);
        const Ctor = numericArray(datatype);
        feeds.set(name, {
          datatype,
          dims,
          data: new Ctor(all.buffer, 0, all.byteLength / Ctor.BYTES_PER_ELEMENT),
        });
      }
    } else {
      // zero_data (the default): zeros of the datatype.
      const t = generateTensor(datatype, dims, () => 0);
      feeds.set(
        name,
        datatype === 'BYTES'
          ? { datatype, dims, data: (t.data as string[]).map(() => '') }
          : zeroed(t),
      );
    }
  }
  return { label: `warmup "${w.name}"`, rows, feeds };
}

function zeroed(t: HostTensor): HostTensor {
  (t.data as { fill(v: never): unknown }).fill(
    (t.datatype === 'INT64' || t.datatype === 'UINT64' ? 0n : 0) as never,
  );
  return t;
}
