// The sequence-batching fixtures: Triton-style control inputs and implicit state on tiny INT32
// graphs whose answers a test can work out by hand, and silero_vad under the direct strategy.
//
//   sequence_accumulator           OUTPUT = (START ? 0 : ACC_IN) + INPUT while READY; ACC_IN -> ACC_OUT
//                                  is implicit state; CORRID_OUT echoes the correlation id (UINT64)
//   sequence_accumulator_explicit  no state: OUTPUT = INPUT + 100 START + 1000 END + 10000 READY
//   silero_vad_direct              the bundled silero_vad wrapper with `direct { }` for `oldest`
//
// Every control and state tensor is [batch, 1] (or [batch, dims...]), as Triton's sequence batcher
// hands them to a model with max_batch_size > 0. CORRID is TYPE_UINT64, Triton's own id type: the
// model only echoes it, and onnxruntime-node 1.30 handles uint64 tensors (Identity, even Add/Mul).

import { DATATYPE_TABLE } from '../../src/tensor/datatypes.js';
import type { Datatype } from '../../src/tensor/datatypes.js';
import type { ConfigSpec } from './fixture-models.js';
import {
  ELEM,
  encodeModel,
  int32Initializer,
  intAttribute,
  node,
  tensorValue,
} from './graph-builder.js';
import {
  SILERO_CHUNK_SAMPLES,
  SILERO_CONTEXT_SAMPLES,
  SILERO_STATE_DIMS,
  sileroVadWrapperModel,
} from './silero-vad-wrapper.js';

/** A fixture before its config is rendered (fixture-models.ts renders it, so no import cycle). */
export interface SequenceFixtureRecipe {
  readonly bytes: Uint8Array;
  readonly config: ConfigSpec;
}

/** The 0/1 control kinds with an int32_false_true pair; CORRID carries a value instead. */
type FlagKind = 'CONTROL_SEQUENCE_START' | 'CONTROL_SEQUENCE_READY' | 'CONTROL_SEQUENCE_END';

type ControlInput =
  | { readonly name: string; readonly kind: FlagKind }
  | {
      readonly name: string;
      readonly kind: 'CONTROL_SEQUENCE_CORRID';
      readonly datatype: Datatype;
    };

interface ImplicitState {
  readonly input: string;
  readonly output: string;
  readonly datatype: Datatype;
  readonly dims: readonly number[];
  /** initial_state's name; the initial value is always zero_data. */
  readonly initialName: string;
}

/** Renders a `sequence_batching { ... direct { } }` block, laid out like silero_vad's config. */
export function renderSequenceBatching(opts: {
  maxSequenceIdleMicroseconds: number;
  controls?: readonly ControlInput[];
  states?: readonly ImplicitState[];
}): string {
  const lines = [
    'sequence_batching {',
    `  max_sequence_idle_microseconds: ${opts.maxSequenceIdleMicroseconds}`,
  ];
  const controls = opts.controls ?? [];
  if (controls.length > 0) {
    const control = (c: ControlInput): string =>
      c.kind === 'CONTROL_SEQUENCE_CORRID'
        ? `kind: ${c.kind} data_type: ${DATATYPE_TABLE[c.datatype].config}`
        : `kind: ${c.kind} int32_false_true: [ 0, 1 ]`;
    lines.push(
      '  control_input [',
      controls.map((c) => `    { name: "${c.name}" control [ { ${control(c)} } ] }`).join(',\n'),
      '  ]',
    );
  }
  const states = opts.states ?? [];
  if (states.length > 0) {
    const state = (s: ImplicitState): string => {
      const type = `data_type: ${DATATYPE_TABLE[s.datatype].config} dims: [ ${s.dims.join(', ')} ]`;
      return (
        `    { input_name: "${s.input}" output_name: "${s.output}" ${type} ` +
        `initial_state: { ${type} zero_data: true name: "${s.initialName}" } }`
      );
    };
    lines.push('  state [', states.map(state).join(',\n'), '  ]');
  }
  // Only the direct strategy: the one oldest-strategy config (silero_vad's) is committed by hand.
  lines.push('  direct { }', '}');
  return lines.join('\n');
}

const FLAGS: readonly ControlInput[] = [
  { name: 'START', kind: 'CONTROL_SEQUENCE_START' },
  { name: 'READY', kind: 'CONTROL_SEQUENCE_READY' },
  { name: 'END', kind: 'CONTROL_SEQUENCE_END' },
];

/** `[batch, 1]` INT32, the shape of INPUT, OUTPUT, every flag and the accumulator. */
const int32Column = (name: string) => tensorValue(name, ELEM.INT32, ['batch', 1]);

/**
 * `sequence_accumulator`: a running sum per sequence. START resets the sum before adding INPUT;
 * a slot whose READY is 0 (no request in it this step) outputs 0 and keeps ACC_IN as ACC_OUT, so an
 * idle slot's state survives the step. END changes nothing in the graph: the scheduler acts on it.
 */
export function accumulatorModel(): Uint8Array {
  return encodeModel({
    name: 'sequence_accumulator',
    docString:
      'OUTPUT = READY ? (START ? 0 : ACC_IN) + INPUT : 0; ACC_OUT = READY ? that sum : ACC_IN; ' +
      'CORRID_OUT = CORRID',
    inputs: [
      int32Column('INPUT'),
      int32Column('START'),
      int32Column('READY'),
      int32Column('END'),
      tensorValue('CORRID', ELEM.UINT64, ['batch', 1]),
      int32Column('ACC_IN'),
    ],
    outputs: [
      int32Column('OUTPUT'),
      tensorValue('CORRID_OUT', ELEM.UINT64, ['batch', 1]),
      int32Column('ACC_OUT'),
    ],
    nodes: [
      node('Cast', ['START'], ['start'], 'start_flag', [intAttribute('to', ELEM.BOOL)]),
      node('Cast', ['READY'], ['ready'], 'ready_flag', [intAttribute('to', ELEM.BOOL)]),
      node('Where', ['start', 'ZERO', 'ACC_IN'], ['base'], 'reset_on_start'),
      node('Add', ['base', 'INPUT'], ['sum'], 'accumulate'),
      node('Where', ['ready', 'sum', 'ZERO'], ['OUTPUT'], 'output_if_ready'),
      node('Where', ['ready', 'sum', 'ACC_IN'], ['ACC_OUT'], 'state_if_ready'),
      node('Identity', ['CORRID'], ['CORRID_OUT'], 'echo_corrid'),
    ],
    initializers: [int32Initializer('ZERO', [], [0])],
  });
}

/** Weights that make each control visible in its own decimal digit of `sequence_accumulator_explicit`. */
export const EXPLICIT_WEIGHTS = { START: 100, END: 1000, READY: 10000 } as const;

/** `sequence_accumulator_explicit`: no state, OUTPUT = INPUT + 100 START + 1000 END + 10000 READY. */
export function explicitControlsModel(): Uint8Array {
  const nodes = [];
  const initializers = [];
  let current = 'INPUT';
  for (const [flag, weight] of Object.entries(EXPLICIT_WEIGHTS)) {
    const w = `W_${flag}`;
    initializers.push(int32Initializer(w, [], [weight]));
    nodes.push(node('Mul', [flag, w], [`weighted_${flag}`], `weigh_${flag}`));
    const out = flag === 'READY' ? 'OUTPUT' : `plus_${flag}`;
    nodes.push(node('Add', [current, `weighted_${flag}`], [out], `add_${flag}`));
    current = out;
  }
  return encodeModel({
    name: 'sequence_accumulator_explicit',
    docString: 'OUTPUT = INPUT + 100*START + 1000*END + 10000*READY (no state)',
    inputs: ['INPUT', 'START', 'END', 'READY'].map(int32Column),
    outputs: [int32Column('OUTPUT')],
    nodes,
    initializers,
  });
}

const INT32_ONE = { datatype: 'INT32', dims: [1] } as const;

/** The sequence fixtures with their configs, in a stable order. */
export function sequenceFixtureRecipes(): SequenceFixtureRecipe[] {
  return [
    {
      bytes: accumulatorModel(),
      config: {
        name: 'sequence_accumulator',
        maxBatchSize: 8,
        inputs: [{ name: 'INPUT', ...INT32_ONE }],
        outputs: [
          { name: 'OUTPUT', ...INT32_ONE },
          { name: 'CORRID_OUT', datatype: 'UINT64', dims: [1] },
        ],
        instanceCount: 1,
        sequenceBatching: renderSequenceBatching({
          maxSequenceIdleMicroseconds: 1_000_000,
          controls: [
            ...FLAGS,
            { name: 'CORRID', kind: 'CONTROL_SEQUENCE_CORRID', datatype: 'UINT64' },
          ],
          states: [{ input: 'ACC_IN', output: 'ACC_OUT', ...INT32_ONE, initialName: 'zero' }],
        }),
      },
    },
    {
      bytes: explicitControlsModel(),
      config: {
        name: 'sequence_accumulator_explicit',
        maxBatchSize: 8,
        inputs: [{ name: 'INPUT', ...INT32_ONE }],
        outputs: [{ name: 'OUTPUT', ...INT32_ONE }],
        instanceCount: 1,
        sequenceBatching: renderSequenceBatching({
          maxSequenceIdleMicroseconds: 1_000_000,
          controls: FLAGS,
        }),
      },
    },
    {
      bytes: sileroVadWrapperModel(),
      config: {
        name: 'silero_vad_direct',
        maxBatchSize: 64,
        inputs: [{ name: 'audio', datatype: 'FP32', dims: [SILERO_CHUNK_SAMPLES] }],
        outputs: [{ name: 'probability', datatype: 'FP32', dims: [1] }],
        instanceCount: 1,
        sequenceBatching: renderSequenceBatching({
          maxSequenceIdleMicroseconds: 5_000_000,
          states: [
            {
              input: 'state',
              output: 'state_out',
              datatype: 'FP32',
              dims: SILERO_STATE_DIMS,
              initialName: 'zeros',
            },
            {
              input: 'context',
              output: 'context_out',
              datatype: 'FP32',
              dims: [SILERO_CONTEXT_SAMPLES],
              initialName: 'silence',
            },
          ],
        }),
      },
    },
  ];
}
