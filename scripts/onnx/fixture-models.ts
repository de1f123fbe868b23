// Recipes for the test-fixture repository (`--fixtures <dir>`): one Identity model per servable
// datatype, a deliberately slow model, a model whose every run fails, a truncated model file, and
// the sequence-batching models of sequence-fixtures.ts. Each carries its config.pbtxt.

import { DATATYPE_TABLE } from '../../src/tensor/datatypes.js';
import type { Datatype } from '../../src/tensor/datatypes.js';
import {
  ELEM,
  encodeModel,
  floatInitializer,
  int64Initializer,
  node,
  tensorValue,
} from './graph-builder.js';
import type { ElemType } from './graph-builder.js';
import { identityModel, mlpModel, simpleModel } from './bundled-models.js';
import { MLP_RESEEDED_SEED } from './mlp-weights.js';
import type { GeneratedModel } from './generated-model.js';
import { sequenceFixtureRecipes } from './sequence-fixtures.js';
import { mulberry32, uniformFloats } from './seeded-random.js';

/** The datatypes that get an `identity_<dtype>` fixture: every one ORT can hold (BF16 it cannot). */
export const IDENTITY_DATATYPES = [
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'FP32',
  'FP64',
  'BYTES',
] as const satisfies readonly Datatype[];

export type IdentityDatatype = (typeof IDENTITY_DATATYPES)[number];

/** ONNX element type of each fixture datatype (exhaustive: a new entry above fails to compile here). */
export function onnxElemType(d: IdentityDatatype): ElemType {
  switch (d) {
    case 'BOOL':
      return ELEM.BOOL;
    case 'UINT8':
      return ELEM.UINT8;
    case 'UINT16':
      return ELEM.UINT16;
    case 'UINT32':
      return ELEM.UINT32;
    case 'UINT64':
      return ELEM.UINT64;
    case 'INT8':
      return ELEM.INT8;
    case 'INT16':
      return ELEM.INT16;
    case 'INT32':
      return ELEM.INT32;
    case 'INT64':
      return ELEM.INT64;
    case 'FP16':
      return ELEM.FLOAT16;
    case 'FP32':
      return ELEM.FLOAT;
    case 'FP64':
      return ELEM.DOUBLE;
    case 'BYTES':
      return ELEM.STRING;
  }
}

/** `identity_fp32`, `identity_bytes`, ...: the fixture model name for a datatype. */
export function identityFixtureName(d: IdentityDatatype): string {
  return `identity_${d.toLowerCase()}`;
}

/**
 * `slow_fp32`'s MatMul+Tanh layers unless INFERNODE_SLOW_LAYERS says otherwise. Measured with
 * onnxruntime-node 1.30 on a 2-core x64 box at intra_op_thread_count 1, one layer costs ~0.055 ms
 * for a single [1,1024] row, ~0.12 ms for a batch of 8 (~0.015 ms a row) and ~0.011 ms a row in
 * large batches: 500 layers take ~30 ms for one row and ~60 ms for a batch of 8. Other machines
 * differ several-fold, so no test relies on these figures: the ones that need the instance busy
 * measure the model first and size their work from that (test/helpers/slow-model-timing.ts).
 */
export const DEFAULT_SLOW_LAYERS = 500;

/**
 * The layer count an INFERNODE_SLOW_LAYERS value asks for: the default when unset or empty, else a
 * whole number from 1 to 100,000. Anything else is an error rather than a silent default, which
 * would regenerate a model other than the one asked for.
 */
export function slowLayersFrom(raw: string | undefined): number {
  const text = raw?.trim() ?? '';
  if (text === '') return DEFAULT_SLOW_LAYERS;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 100_000) {
    throw new Error(`INFERNODE_SLOW_LAYERS must be a whole number from 1 to 100000, got '${raw}'`);
  }
  return n;
}

/**
 * `slow_fp32`'s depth for this run of the generator: INFERNODE_SLOW_LAYERS=<n> regenerates it
 * n layers deep, e.g. 100 or 2500 to check that the timing-dependent tests hold on a machine five
 * times faster or slower than this one (README, "Development").
 */
export function slowLayers(): number {
  return slowLayersFrom(process.env.INFERNODE_SLOW_LAYERS);
}

export const SLOW_WIDTH = 1024;
const SLOW_SEED = 0x5eed51;

/**
 * `slow_fp32`: INPUT0 [-1,1024] -> (MatMul W -> Tanh) x `layers` -> OUTPUT0. One shared weight
 * keeps the file at 4 MiB whatever the depth. Tanh keeps activations bounded however many layers
 * run, and W is uniform in ±sqrt(3/1024) (unit variance per output) so values neither vanish nor
 * saturate.
 */
export function slowModel(layers: number = slowLayers()): Uint8Array {
  const next = mulberry32(SLOW_SEED);
  const weight = uniformFloats(next, SLOW_WIDTH * SLOW_WIDTH, Math.sqrt(3 / SLOW_WIDTH));
  const nodes = [];
  let current = 'INPUT0';
  for (let k = 0; k < layers; k++) {
    const out = k === layers - 1 ? 'OUTPUT0' : `tanh${k}`;
    nodes.push(node('MatMul', [current, 'W'], [`mm${k}`], `mm${k}`));
    nodes.push(node('Tanh', [`mm${k}`], [out], `tanh${k}`));
    current = out;
  }
  return encodeModel({
    name: 'slow_fp32',
    docString: `${layers} x (MatMul 1024x1024 -> Tanh): a deliberately slow model for queue tests`,
    inputs: [tensorValue('INPUT0', ELEM.FLOAT, ['batch', SLOW_WIDTH])],
    outputs: [tensorValue('OUTPUT0', ELEM.FLOAT, ['batch', SLOW_WIDTH])],
    nodes,
    initializers: [floatInitializer('W', [SLOW_WIDTH, SLOW_WIDTH], weight)],
  });
}

/** `failing_run`'s row width: OUTPUT0 declares twice as many. */
export const FAILING_RUN_WIDTH = 4;

/**
 * `failing_run`: loads, then fails inside session.run for every non-empty input, with ORT's own
 * runtime shape error. Reshape(INPUT0, Shape(INPUT0) * [1, 2]) asks for twice the elements INPUT0
 * has; the target shape is computed from the input, so ORT cannot refuse the model when it creates
 * the session. The worker-failure tests' "session that throws on every run".
 */
export function failingRunModel(): Uint8Array {
  return encodeModel({
    name: 'failing_run',
    docString: 'Reshape to twice the input element count: every run fails in ONNX Runtime',
    inputs: [tensorValue('INPUT0', ELEM.FLOAT, ['batch', FAILING_RUN_WIDTH])],
    outputs: [tensorValue('OUTPUT0', ELEM.FLOAT, ['batch', 2 * FAILING_RUN_WIDTH])],
    nodes: [
      node('Shape', ['INPUT0'], ['in_shape'], 'in_shape'),
      node('Mul', ['in_shape', 'DOUBLE_LAST'], ['bad_shape'], 'double_last'),
      node('Reshape', ['INPUT0', 'bad_shape'], ['OUTPUT0'], 'reshape'),
    ],
    initializers: [int64Initializer('DOUBLE_LAST', [2], [1n, 2n])],
  });
}

/** How many leading bytes of `simple`'s model `bad_truncated` keeps. */
export const TRUNCATED_LENGTH = 100;

export interface TensorLine {
  readonly name: string;
  readonly datatype: Datatype;
  readonly dims: readonly number[];
}

/** What `renderConfig` writes. */
export interface ConfigSpec {
  readonly name: string;
  readonly maxBatchSize: number;
  readonly inputs: readonly TensorLine[];
  readonly outputs: readonly TensorLine[];
  readonly instanceCount: number;
  readonly parameters?: Readonly<Record<string, string>>;
  /** A rendered `sequence_batching { ... }` block (sequence-fixtures.ts renders them). */
  readonly sequenceBatching?: string;
}

/** Renders a config.pbtxt in Triton's own layout (the same style as the committed bundled configs). */
export function renderConfig(opts: ConfigSpec): string {
  const tensors = (list: readonly TensorLine[]): string =>
    list
      .map(
        (t) =>
          `  {\n    name: "${t.name}"\n    data_type: ${DATATYPE_TABLE[t.datatype].config}\n` +
          `    dims: [ ${t.dims.join(', ')} ]\n  }`,
      )
      .join(',\n');
  const lines = [
    `name: "${opts.name}"`,
    'platform: "onnxruntime_onnx"',
    `max_batch_size: ${opts.maxBatchSize}`,
    `input [\n${tensors(opts.inputs)}\n]`,
    `output [\n${tensors(opts.outputs)}\n]`,
    ...(opts.sequenceBatching === undefined ? [] : [opts.sequenceBatching]),
    `instance_group [ { count: ${opts.instanceCount}, kind: KIND_CPU } ]`,
  ];
  for (const [key, value] of Object.entries(opts.parameters ?? {})) {
    lines.push(`parameters {\n  key: "${key}"\n  value: { string_value: "${value}" }\n}`);
  }
  return `${lines.join('\n')}\n`;
}

function identityFixture(d: IdentityDatatype): GeneratedModel {
  const name = identityFixtureName(d);
  return {
    name,
    version: 1,
    bytes: identityModel(name, onnxElemType(d)),
    config: renderConfig({
      name,
      maxBatchSize: 8,
      inputs: [{ name: 'INPUT0', datatype: d, dims: [-1] }],
      outputs: [{ name: 'OUTPUT0', datatype: d, dims: [-1] }],
      instanceCount: 1,
    }),
  };
}

/** Everything `generate-models.js --fixtures <dir>` writes, in a stable order. */
export function fixtureModels(): GeneratedModel[] {
  const simpleIo = (datatype: Datatype): TensorLine[] => [
    { name: 'INPUT0', datatype, dims: [16] },
    { name: 'INPUT1', datatype, dims: [16] },
  ];
  return [
    ...IDENTITY_DATATYPES.map(identityFixture),
    {
      // Other weights, same signature as the bundled mlp: the reload tests' second version.
      name: 'mlp_reseeded',
      version: 1,
      bytes: mlpModel(MLP_RESEEDED_SEED),
      config: renderConfig({
        name: 'mlp_reseeded',
        maxBatchSize: 128,
        inputs: [{ name: 'INPUT0', datatype: 'FP32', dims: [784] }],
        outputs: [{ name: 'OUTPUT0', datatype: 'FP32', dims: [10] }],
        instanceCount: 1,
        parameters: { intra_op_thread_count: '1' },
      }),
    },
    {
      name: 'slow_fp32',
      version: 1,
      bytes: slowModel(),
      config: renderConfig({
        name: 'slow_fp32',
        maxBatchSize: 8,
        inputs: [{ name: 'INPUT0', datatype: 'FP32', dims: [SLOW_WIDTH] }],
        outputs: [{ name: 'OUTPUT0', datatype: 'FP32', dims: [SLOW_WIDTH] }],
        instanceCount: 1,
        parameters: { intra_op_thread_count: '1' },
      }),
    },
    {
      name: 'failing_run',
      version: 1,
      bytes: failingRunModel(),
      config: renderConfig({
        name: 'failing_run',
        maxBatchSize: 8,
        inputs: [{ name: 'INPUT0', datatype: 'FP32', dims: [FAILING_RUN_WIDTH] }],
        outputs: [{ name: 'OUTPUT0', datatype: 'FP32', dims: [2 * FAILING_RUN_WIDTH] }],
        instanceCount: 1,
      }),
    },
    {
      name: 'bad_truncated',
      version: 1,
      bytes: simpleModel().slice(0, TRUNCATED_LENGTH),
      config: renderConfig({
        name: 'bad_truncated',
        maxBatchSize: 8,
        inputs: simpleIo('INT32'),
        outputs: [
          { name: 'OUTPUT0', datatype: 'INT32', dims: [16] },
          { name: 'OUTPUT1', datatype: 'INT32', dims: [16] },
        ],
        instanceCount: 1,
      }),
    },
    ...sequenceFixtureRecipes().map((r) => ({
      name: r.config.name,
      version: 1,
      bytes: r.bytes,
      config: renderConfig(r.config),
    })),
  ];
}
