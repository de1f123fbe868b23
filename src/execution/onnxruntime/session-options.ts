// Turns a plain-data OrtSessionPlan into onnxruntime-node's SessionOptions. Kept apart from the
// worker so the exact options a session is created with can be unit-tested without a worker.

import type { InferenceSession } from 'onnxruntime-node';
import { EXECUTION_PROVIDERS } from './config/accelerators.js';
import type { ExecutionProviderPlan, OrtSessionPlan } from './session-plan.js';
import type { OrtLogSeverity } from './ort-log-level.js';

type ProviderEntry = InferenceSession.ExecutionProviderConfig;

export interface SessionOptionsExtras {
  /**
   * The test-only GPU stand-in (test-gpu-target.ts): serialized GPU providers are created as ORT's
   * CPU provider, so their locking can be tested on machines without a GPU.
   */
  readonly gpuStandIn?: boolean;
  /** ORT's severity threshold for the session's own log lines (ort-log-level.ts). */
  readonly logSeverity?: OrtLogSeverity;
}

export function sessionOptionsFromPlan(
  plan: OrtSessionPlan,
  logId: string,
  extras: SessionOptionsExtras = {},
): InferenceSession.SessionOptions {
  return {
    executionProviders: plan.executionProviders.map((ep) => providerEntry(ep, extras)),
    intraOpNumThreads: plan.intraOpNumThreads,
    interOpNumThreads: plan.interOpNumThreads,
    executionMode: plan.executionMode,
    graphOptimizationLevel: plan.graphOptimizationLevel,
    enableCpuMemArena: plan.enableCpuMemArena,
    enableMemPattern: plan.enableMemPattern,
    // The binding adds every `extra` key as a session config entry under its own (dotted) name.
    extra: { ...plan.configEntries },
    logId,
    ...(extras.logSeverity !== undefined && { logSeverityLevel: extras.logSeverity }),
  };
}

/**
 * One provider as the binding takes it. The binding reads `name` and `deviceId` and nothing else
 * for CUDA/TensorRT (see unappliedOptionWarnings), so only those go; CPU goes as its bare name.
 * WebGPU takes its own options and no device id (the binding rejects one).
 */
function providerEntry(ep: ExecutionProviderPlan, extras: SessionOptionsExtras): ProviderEntry {
  const spec = EXECUTION_PROVIDERS[ep.name];
  if (spec.serialized && extras.gpuStandIn === true) return EXECUTION_PROVIDERS.cpu.ortName;
  if (ep.name === 'webgpu') {
    const { forceCpuNodeNames, ...rest } = ep.options;
    return {
      ...rest,
      name: spec.ortName,
      ...(typeof forceCpuNodeNames === 'string' && {
        forceCpuNodeNames: forceCpuNodeNames.split(','),
      }),
    } as ProviderEntry;
  }
  if (ep.deviceId === undefined || !spec.choosesDevice) return spec.ortName;
  const onDevice = { name: spec.ortName, deviceId: ep.deviceId };
  return onDevice;
}
