// The ONNX Runtime session plan the tests give instances that need no particular one.

import type { OrtSessionPlan } from '../../src/execution/onnxruntime/session-plan.js';

/** A CPU-only plan with one intra-op thread: what the thread budget gives on a 2-core machine. */
export const CPU_PLAN: OrtSessionPlan = Object.freeze<OrtSessionPlan>({
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  enableCpuMemArena: true,
  enableMemPattern: true,
  configEntries: {},
  executionProviders: [{ name: 'cpu', options: {} }],
});
