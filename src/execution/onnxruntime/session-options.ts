// Turns a plain-data OrtSessionPlan into onnxruntime-node's SessionOptions. Kept apart from the
// worker so the exact options a session is created with can be unit-tested without a worker.

import type { InferenceSession } from 'onnxruntime-node';
import { EXECUTION_PROVIDERS } from '../../config/accelerators.js';
import type { OrtSessionPlan } from './session-plan.js';

export function sessionOptionsFromPlan(
  plan: OrtSessionPlan,
  logId: string,
): InferenceSession.SessionOptions {
  return {
    // The binding reads `name` and `deviceId` from each entry and nothing else for CUDA/TensorRT
    // (see unappliedOptionWarnings), so only those are passed; CPU goes as its bare name.
    executionProviders: plan.executionProviders.map((ep) => {
      const name = EXECUTION_PROVIDERS[ep.name].ortName;
      return ep.deviceId === undefined ? name : { name, deviceId: ep.deviceId };
    }),
    intraOpNumThreads: plan.intraOpNumThreads,
    interOpNumThreads: plan.interOpNumThreads,
    executionMode: plan.executionMode,
    graphOptimizationLevel: plan.graphOptimizationLevel,
    enableCpuMemArena: plan.enableCpuMemArena,
    enableMemPattern: plan.enableMemPattern,
    // The binding adds every `extra` key as a session config entry under its own (dotted) name.
    extra: { ...plan.configEntries },
    logId,
  };
}
