// `platform: "ensemble"` through the config pipeline: the steps kept as written, no instance groups,
// and each structural rule with the message it fails with.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pipeline, rejects } from '../../config/pipeline-helpers.js';

const IO = `input { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } output { name: "Z" data_type: TYPE_FP32 dims: [ 2 ] }`;
const step = (model: string, from: string, to: string): string =>
  `{ model_name: "${model}" input_map { key: "I" value: "${from}" } output_map { key: "O" value: "${to}" } }`;
const ensemble = (steps: string[]): string =>
  `platform: "ensemble" max_batch_size: 4 ${IO} ensemble_scheduling { step [ ${steps.join(', ')} ] }`;

void describe('ensemble config', () => {
  void it('keeps the steps, with -1 as the default version, and no instance group', () => {
    const { config } = pipeline(ensemble([step('a', 'X', 'Y'), step('b', 'Y', 'Z')]));
    assert.equal(config.platform, 'ensemble');
    assert.deepEqual(config.instance_group, []);
    assert.deepEqual(config.ensemble_scheduling?.step[1], {
      model_name: 'b',
      model_version: -1,
      input_map: { I: 'Y' },
      output_map: { O: 'Z' },
    });
  });

  void it('refuses what cannot run, naming the step and the tensor', () => {
    rejects(
      `platform: "ensemble" ${IO}`,
      'CONFIG_INVALID',
      "ensemble scheduling must be set for ensemble 'm' whose platform is ensemble, with at least one step",
    );
    rejects(
      ensemble([step('a', 'W', 'Z')]),
      'CONFIG_INVALID',
      "step 0 of ensemble 'm' maps input 'I' of model 'a' to ensemble tensor 'W', which is neither an ensemble input nor written by any step",
    );
    rejects(
      ensemble([step('a', 'X', 'Y')]),
      'CONFIG_INVALID',
      "ensemble output 'Z' of ensemble 'm' is not written by any step",
    );
    rejects(
      ensemble([step('a', 'X', 'Z'), step('b', 'X', 'Z')]),
      'CONFIG_INVALID',
      "ensemble tensor 'Z' can appear in an output map only once for ensemble 'm': steps 0 and 1 both write it",
    );
    rejects(
      ensemble([step('a', 'X', 'X')]),
      'CONFIG_INVALID',
      "step 0 of ensemble 'm' writes ensemble tensor 'X', which is an ensemble input",
    );
    rejects(
      ensemble([step('a', 'Y2', 'Y1'), step('b', 'Y1', 'Y2'), step('c', 'X', 'Z')]),
      'CONFIG_INVALID',
      "ensemble 'm' has a cycle: steps 0, 1 each wait for a tensor that one of them writes",
    );
    rejects(
      ensemble([step('m', 'X', 'Z')]),
      'CONFIG_INVALID',
      "step 0 of ensemble 'm' names the ensemble itself",
    );
    rejects(
      `max_batch_size: 4 ${IO} ensemble_scheduling { step [ ${step('a', 'X', 'Z')} ] } backend: "onnxruntime"`,
      'CONFIG_INVALID',
      "ensemble scheduling cannot be set for model 'm' whose platform is not ensemble",
    );
  });
});
