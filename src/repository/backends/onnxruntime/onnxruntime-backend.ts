// The ONNX Runtime backend (`backend: "onnxruntime"`, platform `onnxruntime_onnx`): each instance is
// a worker (workers/ort-worker.ts) owning one InferenceSession, built from its session plan
// (execution/onnxruntime/build-session-plan.ts: providers, threads, graph options) and served over the doorbell
// (execution/doorbell.ts). As Triton's ORT backend does per instance, the config must describe the
// model that was actually opened (autocomplete only checked it when it had to open the model).

import { ONNXRUNTIME_BACKEND } from '../../../config/autocomplete.js';
import { checkModelAgainstConfig } from '../../../execution/onnxruntime/config/check-model-io.js';
import {
  ORT_BACKEND_SETTINGS,
  readOrtBackendConfig,
} from '../../../execution/onnxruntime/config/ort-backend-config.js';
import {
  readOrtParameters,
  type OrtParameters,
} from '../../../execution/onnxruntime/config/ort-parameters.js';
import { buildInstanceGroupPlans } from '../../../execution/onnxruntime/build-session-plan.js';
import { unappliedOptionWarnings } from '../../../execution/onnxruntime/execution-providers.js';
import { ortWorkers } from '../../../execution/onnxruntime/ort-workers.js';
import type { InstanceGroupPlan } from '../../../execution/onnxruntime/session-plan.js';
import type { Backend } from '../backend.js';
import { ONNXRUNTIME_CONFIG_RULES } from './onnxruntime-config.js';
import { startInstances, type InstanceBackendParts } from '../start-instances.js';

/** The instance start's parts for a model with these ORT parameters. */
function parts(ort: OrtParameters): InstanceBackendParts<InstanceGroupPlan> {
  return {
    // One session plan per worker pool: providers and device ids, the budget's threads, graph options.
    groups: (c, version, budget, warn) => {
      const groups = buildInstanceGroupPlans(c.config, ort, version, budget);
      for (const g of groups)
        for (const w of unappliedOptionWarnings(g.plan.executionProviders)) warn(w);
      return groups;
    },
    // workers/ort-worker.js (execution/onnxruntime/ort-workers.ts), runs over the doorbell unless
    // --disable-doorbell; it checks that every provider a plan names is installed.
    poolOptions: (_c, deps) => {
      const logSeverity = deps.ortLogSeverity?.();
      return {
        backend: ortWorkers({
          doorbell: deps.doorbell,
          ...(logSeverity !== undefined && { logSeverity }),
        }),
      };
    },
    checkModelIO: checkModelAgainstConfig,
    // Every request to an ONNX model gets exactly one response (config/unsupported.ts).
    decoupled: () => false,
    bytesMayHoldNul: ONNXRUNTIME.bytesMayHoldNul,
  };
}

export const ONNXRUNTIME: Backend = Object.freeze<Backend>({
  name: ONNXRUNTIME_BACKEND,
  config: ONNXRUNTIME_CONFIG_RULES,
  hasModelFile: true,
  dependencies: () => [],
  ortSessions: true,
  // Its global thread pools and autocomplete's default batch size (execution/onnxruntime/config/).
  settings: {
    ...ORT_BACKEND_SETTINGS,
    read: (flags) => {
      const ort = readOrtBackendConfig(flags);
      return {
        globalThreadPool: ort.enableGlobalThreadpool,
        intraOpThreadCount: ort.intraOpThreadCount ?? 0,
        interOpThreadCount: ort.interOpThreadCount ?? 0,
      };
    },
  },
  // ONNX Runtime reads a BYTES element as a C string: a NUL would cut it short.
  bytesMayHoldNul: false,
  // Its parameters, graph level and execution providers, read once (execution/onnxruntime/config/ort-parameters.ts).
  bind: (loaded) => {
    const ort = readOrtParameters(loaded.config);
    const bound = parts(ort.parameters);
    return {
      start: (configured, version, budget, warmup, deps) =>
        startInstances(bound, configured, version, budget, warmup, deps),
      threadParameters: ort.parameters,
      warnings: ort.warnings,
    };
  },
});
