// `sequence_batching` through the config pipeline: Triton's defaults made explicit, and each rule a
// config must meet before a sequence model loads, with the field it names.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkModelAgainstConfig } from '../../../src/execution/onnxruntime/config/check-model-io.js';
import type { ModelIO } from '../../../src/config/read-model-io.js';
import { IO, pipeline, rejects } from './pipeline-helpers.js';

const START =
  '{ name: "S" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }';
const STATE =
  '{ input_name: "h" output_name: "h_out" data_type: TYPE_FP32 dims: [ 2, 4 ] initial_state: { data_type: TYPE_FP32 dims: [ 2, 4 ] zero_data: true name: "z" } }';

const seq = (body: string, mbs = 4): string =>
  `max_batch_size: ${mbs} ${IO} sequence_batching { ${body} }`;

void describe('sequence_batching config', () => {
  void it("fills Triton's defaults: 1 s idle, the direct strategy", () => {
    const { config } = pipeline(seq(''));
    assert.deepEqual(config.sequence_batching, {
      max_sequence_idle_microseconds: 1_000_000,
      control_input: [],
      state: [],
      direct: { max_queue_delay_microseconds: 0, minimum_slot_utilization: 0 },
    });
  });

  void it('keeps controls, state and the oldest strategy as written', () => {
    const { config } = pipeline(
      seq(
        `max_sequence_idle_microseconds: 5000 control_input [ ${START}, { name: "C" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_STRING } ] } ] state [ ${STATE} ] oldest { max_candidate_sequences: 16 preferred_batch_size: [ 2, 4 ] max_queue_delay_microseconds: 100 preserve_ordering: true }`,
      ),
    );
    const sb = config.sequence_batching;
    assert.equal(sb?.max_sequence_idle_microseconds, 5000);
    assert.deepEqual(sb?.control_input[1]?.control[0]?.data_type, 'TYPE_STRING');
    assert.deepEqual(sb?.state[0]?.dims, [2, 4]);
    assert.equal(sb?.state[0]?.initial_state[0]?.zero_data, true);
    assert.deepEqual(sb?.oldest, {
      max_candidate_sequences: 16,
      preferred_batch_size: [2, 4],
      max_queue_delay_microseconds: 100,
      preserve_ordering: true,
    });
    assert.equal(sb?.direct, undefined);
  });

  void it('refuses malformed controls, naming the control', () => {
    rejects(
      seq(
        'control_input [ { name: "S" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] fp32_false_true: [ 0, 1 ] } ] } ]',
      ),
      'CONFIG_INVALID',
      /control 'CONTROL_SEQUENCE_START' of input 'S' .* must specify exactly one of int32_false_true, fp32_false_true or bool_false_true with 2 values \(false, then true\), got 2 and 2/,
    );
    rejects(
      seq(
        'control_input [ { name: "S" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 1 ] } ] } ]',
      ),
      'CONFIG_INVALID',
      /got 1$/,
    );
    rejects(
      seq('control_input [ { name: "C" control [ { kind: CONTROL_SEQUENCE_CORRID } ] } ]'),
      'CONFIG_INVALID',
      /must specify data_type TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 or TYPE_STRING .* got data_type none/,
    );
    rejects(
      seq(
        `control_input [ ${START}, { name: "T" control [ { kind: CONTROL_SEQUENCE_START bool_false_true: [ false, true ] } ] } ]`,
      ),
      'CONFIG_INVALID',
      /CONTROL_SEQUENCE_START is given by both 'S' and 'T'/,
    );
    rejects(
      seq(
        'control_input [ { name: "x" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] } ]',
      ),
      'CONFIG_INVALID',
      /control input 'x' of model m has the same name as a model input/,
    );
  });

  void it('refuses state it cannot keep in fixed slots', () => {
    rejects(
      seq('state [ { input_name: "h" output_name: "h_out" data_type: TYPE_STRING dims: [ 1 ] } ]'),
      'UNSUPPORTED',
      /state 'h' of model m has data_type TYPE_STRING/,
    );
    rejects(
      seq('state [ { input_name: "h" output_name: "h_out" data_type: TYPE_FP32 dims: [ -1 ] } ]'),
      'UNSUPPORTED',
      /must have fixed dims >= 1 \(growable state is not supported\), got \[-1\]/,
    );
    rejects(
      seq(
        'state [ { input_name: "h" output_name: "h_out" data_type: TYPE_FP32 dims: [ 2 ] initial_state: { data_type: TYPE_FP32 dims: [ 3 ] zero_data: true name: "z" } } ]',
      ),
      'CONFIG_INVALID',
      /initial state 'z' of state 'h' of model m must have the state's data_type TYPE_FP32 and dims \[2\], got TYPE_FP32 \[3\]/,
    );
    rejects(
      seq(
        'state [ { input_name: "h" output_name: "h_out" data_type: TYPE_FP32 dims: [ 2 ] initial_state: { data_type: TYPE_FP32 dims: [ 2 ] name: "z" } } ]',
      ),
      'CONFIG_INVALID',
      /must specify exactly one of zero_data: true or data_file/,
    );
    rejects(
      seq(
        'state [ { input_name: "h" output_name: "h_out" data_type: TYPE_FP32 dims: [ 2 ] initial_state: { data_type: TYPE_FP32 dims: [ 2 ] data_file: "../x" name: "z" } } ]',
      ),
      'CONFIG_INVALID',
      /data_file must be a file name inside <model>\/initial_state, got "\.\.\/x"/,
    );
  });

  void it('refuses oldest settings out of range and iterative sequences', () => {
    rejects(
      seq('oldest { preferred_batch_size: [ 8 ] }'),
      'CONFIG_INVALID',
      /preferred_batch_size must be in \[1, max_batch_size 4\] for m, got 8/,
    );
    rejects(
      seq('iterative_sequence: true'),
      'UNSUPPORTED',
      /iterative_sequence: true \} is not supported/,
    );
  });

  void it("counts control and state tensors among the model's inputs, and finds each", () => {
    const { config } = pipeline(seq(`control_input [ ${START} ] state [ ${STATE} ]`));
    const t = (name: string, shape: (number | string)[]) => ({ name, ortType: 'float32', shape });
    const io: ModelIO = {
      inputs: [t('x', ['b', 3]), { ...t('S', ['b', 1]), ortType: 'int32' }, t('h', ['b', 2, 4])],
      outputs: [t('y', ['b', 3]), t('h_out', ['b', 2, 4])],
    } as ModelIO;
    checkModelAgainstConfig(config, io);
    assert.throws(
      () => checkModelAgainstConfig(config, { ...io, inputs: io.inputs.slice(0, 2) } as ModelIO),
      /configuration expects 3 inputs \(1 inputs, 1 control inputs, 1 state inputs\), model provides 2/,
    );
    assert.throws(
      () => checkModelAgainstConfig(config, { ...io, outputs: io.outputs.slice(0, 1) } as ModelIO),
      /sequence batching state output 'h_out' is not a tensor of the model, which has y/,
    );
  });
});
