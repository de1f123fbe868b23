// The execution-provider table, and the CUDA and OpenVINO accelerator parameters (Triton ORT backend
// README, "CUDA Execution Provider" and "OpenVINO"). TensorRT's are in tensorrt-options.test.ts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  acceleratorNamed,
  acceleratorsIn,
  cudaOptions,
  webGpuOptions,
  EXECUTION_PROVIDER_NAMES,
  EXECUTION_PROVIDERS,
  providerForOrtName,
} from '../../../../../src/execution/onnxruntime/config/accelerators.js';
import { InferenceServerError } from '../../../../../src/errors.js';

const invalid = (pattern: RegExp) => (e: unknown) =>
  e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && pattern.test(e.message);

void describe('the execution-provider table', () => {
  void it('lists the providers in registration order, CPU last', () => {
    assert.deepEqual(EXECUTION_PROVIDER_NAMES, ['tensorrt', 'cuda', 'webgpu', 'openvino', 'cpu']);
  });

  void it('each config list takes its own accelerators, and none takes the CPU provider', () => {
    assert.deepEqual(acceleratorsIn('gpu_execution_accelerator'), ['tensorrt', 'cuda', 'webgpu']);
    assert.deepEqual(acceleratorsIn('cpu_execution_accelerator'), ['openvino']);
    assert.equal(acceleratorNamed('gpu_execution_accelerator', 'cuda'), 'cuda');
    assert.equal(acceleratorNamed('gpu_execution_accelerator', 'openvino'), undefined);
    assert.equal(acceleratorNamed('cpu_execution_accelerator', 'cpu'), undefined);
    assert.equal(acceleratorNamed('cpu_execution_accelerator', 'toString'), undefined);
  });

  void it('GPU accelerators run on GPU instances; the others on every instance', () => {
    for (const name of EXECUTION_PROVIDER_NAMES) {
      const spec = EXECUTION_PROVIDERS[name];
      assert.equal(spec.device, spec.list === 'gpu_execution_accelerator' ? 'GPU' : 'CPU', name);
    }
  });

  void it('maps onnxruntime-node names back to providers, and nothing else', () => {
    for (const name of EXECUTION_PROVIDER_NAMES) {
      assert.equal(providerForOrtName(EXECUTION_PROVIDERS[name].ortName), name);
    }
    assert.equal(providerForOrtName('webnn'), undefined);
  });

  void it('TensorRT needs the CUDA libraries too: CUDA is always its fallback', () => {
    const cuda = EXECUTION_PROVIDERS.cuda.libraries ?? [];
    const tensorrt = EXECUTION_PROVIDERS.tensorrt.libraries ?? [];
    assert.ok(cuda.length > 0);
    assert.ok(cuda.every((l) => tensorrt.includes(l)));
  });

  void it('CUDA is the one GPU provider a GPU instance gets unnamed; WebGPU alone is serialized', () => {
    const implicit = EXECUTION_PROVIDER_NAMES.filter((n) => EXECUTION_PROVIDERS[n].implicit);
    const serialized = EXECUTION_PROVIDER_NAMES.filter((n) => EXECUTION_PROVIDERS[n].serialized);
    assert.deepEqual(implicit, ['cuda']);
    assert.deepEqual(serialized, ['webgpu']);
    assert.equal(EXECUTION_PROVIDERS.webgpu.choosesDevice, false);
    assert.deepEqual(EXECUTION_PROVIDERS.webgpu.libraries, []);
  });

  void it('OpenVINO runs on the CPU device, with its parameters passed through', () => {
    assert.deepEqual(EXECUTION_PROVIDERS.openvino.options({ num_of_threads: '4' }), {
      device_type: 'CPU',
      num_of_threads: '4',
    });
  });
});

void describe('WebGPU accelerator parameters', () => {
  void it('takes the options the binding reads, checked', () => {
    assert.deepEqual(
      webGpuOptions({
        preferredLayout: 'NHWC',
        validationMode: 'disabled',
        storageBufferCacheMode: 'bucket',
        enableRobustness: 'true',
        forceCpuNodeNames: 'a,b',
      }),
      {
        preferredLayout: 'NHWC',
        validationMode: 'disabled',
        storageBufferCacheMode: 'bucket',
        enableRobustness: true,
        forceCpuNodeNames: 'a,b',
      },
    );
  });
  void it('rejects a bad value, naming what was expected and what arrived', () => {
    assert.throws(
      () => webGpuOptions({ preferredLayout: 'nhwc' }),
      invalid(/parameter "preferredLayout": expected one of "NCHW", "NHWC", got "nhwc"/),
    );
    assert.throws(() => webGpuOptions({ forceCpuNodeNames: 'a,,b' }), invalid(/comma-separated/));
  });
  void it('rejects keys the binding would refuse, own keys only', () => {
    for (const key of ['deviceId', 'toString', '__proto__']) {
      assert.throws(
        () => webGpuOptions({ [key]: '0' }),
        invalid(new RegExp(`"${key}" is not one onnxruntime-node reads; expected one of`)),
      );
    }
  });
});

void describe('CUDA accelerator parameters', () => {
  void it('passes arbitrary keys through as text', () => {
    assert.deepEqual(cudaOptions({ cudnn_conv_use_max_workspace: '0', tunable_op_enable: '1' }), {
      cudnn_conv_use_max_workspace: '0',
      tunable_op_enable: '1',
    });
  });
  void it('use_ep_level_unified_stream is checked as a boolean', () => {
    assert.deepEqual(cudaOptions({ use_ep_level_unified_stream: '1' }), {
      use_ep_level_unified_stream: true,
    });
    assert.throws(() => cudaOptions({ use_ep_level_unified_stream: '2' }), invalid(/boolean/));
  });
  void it('do_copy_in_default_stream is checked as a boolean', () => {
    assert.deepEqual(cudaOptions({ do_copy_in_default_stream: 'false' }), {
      do_copy_in_default_stream: false,
    });
  });
});
