// The execution providers each instance registers, from the model's OrtParameters: GPU providers on
// the instance's device for GPU instances only, CPU ones for every instance, CPU last. The parameter
// mapping itself is tested in test/unit/execution/onnxruntime/config/ (accelerators, tensorrt-options,
// ort-parameters).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  executionProvidersFor,
  unappliedOptionWarnings,
} from '../../../src/execution/onnxruntime/execution-providers.js';
import { accel, modelConfig, ortOf } from './model-config-fixture.js';

const invalid = (pattern: RegExp) => (e: unknown) =>
  e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && pattern.test(e.message);
const providersFor = (
  config: Parameters<typeof ortOf>[0],
  instance: Parameters<typeof executionProvidersFor>[1],
) => executionProvidersFor(ortOf(config), instance);

void describe('executionProvidersFor', () => {
  const gpu0 = { kind: 'KIND_GPU', deviceId: 2 } as const;
  const cpu = { kind: 'KIND_CPU' } as const;

  void it('CPU instance with no accelerators: CPU only', () => {
    assert.deepEqual(providersFor(modelConfig(), cpu), [{ name: 'cpu', options: {} }]);
  });

  void it('GPU instance: CUDA on its device by default, CPU last', () => {
    assert.deepEqual(providersFor(modelConfig(), gpu0), [
      { name: 'cuda', deviceId: 2, options: {} },
      { name: 'cpu', options: {} },
    ]);
  });

  void it('TensorRT comes first, with CUDA as its fallback on the same device', () => {
    const config = modelConfig({
      gpu: [
        accel('tensorrt', { precision_mode: 'FP16' }),
        accel('cuda', { tunable_op_enable: '1' }),
      ],
    });
    assert.deepEqual(providersFor(config, gpu0), [
      { name: 'tensorrt', deviceId: 2, options: { trt_fp16_enable: true } },
      { name: 'cuda', deviceId: 2, options: { tunable_op_enable: '1' } },
      { name: 'cpu', options: {} },
    ]);
  });

  void it('deprecated top-level keys land on the CUDA EP and win over the accelerator’s', () => {
    const config = modelConfig({
      gpu: [accel('cuda', { cudnn_conv_algo_search: 'DEFAULT' })],
      parameters: { cudnn_conv_algo_search: '1', gpu_mem_limit: '1024' },
    });
    assert.deepEqual(providersFor(config, gpu0)[0], {
      name: 'cuda',
      deviceId: 2,
      options: { cudnn_conv_algo_search: 'HEURISTIC', gpu_mem_limit: '1024' },
    });
  });

  void it('GPU accelerators are not used by CPU instances', () => {
    const config = modelConfig({ gpu: [accel('tensorrt')] });
    assert.deepEqual(providersFor(config, cpu), [{ name: 'cpu', options: {} }]);
  });

  void it('openvino is a CPU accelerator with device_type CPU, before the CPU EP', () => {
    const config = modelConfig({ cpu: [accel('openvino')] });
    assert.deepEqual(providersFor(config, cpu), [
      { name: 'openvino', options: { device_type: 'CPU' } },
      { name: 'cpu', options: {} },
    ]);
  });

  void it('an unknown accelerator name is CONFIG_INVALID in either list, for any instance kind', () => {
    assert.throws(
      () => providersFor(modelConfig({ gpu: [accel('rocm')] }), cpu),
      invalid(/unknown Execution Accelerator 'rocm' is requested for simple/),
    );
    assert.throws(
      () => providersFor(modelConfig({ cpu: [accel('dnnl')] }), gpu0),
      invalid(/unknown Execution Accelerator 'dnnl' is requested for simple/),
    );
  });

  void it('warns that the binding applies only the device id of GPU providers', () => {
    const config = modelConfig({ gpu: [accel('tensorrt', { precision_mode: 'FP16' })] });
    const lines = unappliedOptionWarnings(providersFor(config, gpu0));
    assert.deepEqual(lines, [
      'execution provider "tensorrt": onnxruntime-node applies only the device id; ' +
        'options not applied: trt_fp16_enable',
    ]);
  });
});
