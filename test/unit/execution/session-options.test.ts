// The SessionOptions a worker creates its session with, from a plan.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionOptionsFromPlan } from '../../../src/execution/onnxruntime/session-options.js';
import type { OrtSessionPlan } from '../../../src/execution/onnxruntime/session-plan.js';

const plan: OrtSessionPlan = {
  intraOpNumThreads: 2,
  interOpNumThreads: 1,
  executionMode: 'parallel',
  graphOptimizationLevel: 'extended',
  enableCpuMemArena: false,
  enableMemPattern: true,
  configEntries: { 'session.intra_op.allow_spinning': '0' },
  executionProviders: [
    { name: 'tensorrt', deviceId: 1, options: { trt_fp16_enable: true } },
    { name: 'cuda', deviceId: 1, options: {} },
    { name: 'cpu', options: {} },
  ],
};

void describe('sessionOptionsFromPlan', () => {
  void it('maps every plan field onto the binding’s option names', () => {
    assert.deepEqual(sessionOptionsFromPlan(plan, 'simple/simple_0'), {
      executionProviders: [{ name: 'tensorrt', deviceId: 1 }, { name: 'cuda', deviceId: 1 }, 'cpu'],
      intraOpNumThreads: 2,
      interOpNumThreads: 1,
      executionMode: 'parallel',
      graphOptimizationLevel: 'extended',
      enableCpuMemArena: false,
      enableMemPattern: true,
      extra: { 'session.intra_op.allow_spinning': '0' },
      logId: 'simple/simple_0',
    });
  });
});

void describe('sessionOptionsFromPlan: WebGPU', () => {
  const webgpu: OrtSessionPlan = {
    ...plan,
    executionProviders: [
      {
        name: 'webgpu',
        deviceId: 0,
        options: { preferredLayout: 'NHWC', forceCpuNodeNames: 'Resize_1,Shape_2' },
      },
      { name: 'cpu', options: {} },
    ],
  };

  void it('passes its options, the node list as an array, and no device id (the binding refuses one)', () => {
    assert.deepEqual(sessionOptionsFromPlan(webgpu, 'm/m_0').executionProviders, [
      { name: 'webgpu', preferredLayout: 'NHWC', forceCpuNodeNames: ['Resize_1', 'Shape_2'] },
      'cpu',
    ]);
  });

  void it('the test-only stand-in creates the CPU provider in its place', () => {
    assert.deepEqual(
      sessionOptionsFromPlan(webgpu, 'm/m_0', { gpuStandIn: true }).executionProviders,
      ['cpu', 'cpu'],
    );
    // Other providers are not stood in for.
    assert.deepEqual(
      sessionOptionsFromPlan(plan, 'm/m_0', { gpuStandIn: true }).executionProviders,
      [{ name: 'tensorrt', deviceId: 1 }, { name: 'cuda', deviceId: 1 }, 'cpu'],
    );
  });
});
