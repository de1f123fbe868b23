// The ONNX Runtime backend (`backend: "onnxruntime"`, platform `onnxruntime_onnx`): each instance is
// a worker (workers/ort-worker.ts) owning one InferenceSession, built from its session plan
// (execution/build-session-plan.ts: providers, threads, graph options) and served over the doorbell
// (execution/doorbell.ts). As Triton's ORT backend does per instance, the config must describe the
// model that was actually opened (autocomplete only checked it when it had to open the model).

import { ONNXRUNTIME_BACKEND } from '../../../config/autocomplete.js';
import { checkModelAgainstConfig } from '../../../config/check-model-io.js';
import { ortWorkers } from '../../../execution/onnxruntime/ort-workers.js';
import type { Backend } from '../backend.js';
import { startInstances, type InstanceBackendParts } from '../start-instances.js';

const PARTS: InstanceBackendParts = {
  // workers/ort-worker.js (execution/onnxruntime/ort-workers.ts), runs over the doorbell unless
  // --disable-doorbell.
  poolOptions: (_c, deps) => ({ backend: ortWorkers({ doorbell: deps.doorbell }) }),
  checkModelIO: checkModelAgainstConfig,
  // Every request to an ONNX model gets exactly one response (config/unsupported.ts).
  decoupled: () => false,
  // ONNX Runtime reads a BYTES element as a C string: a NUL would cut it short.
  bytesMayHoldNul: false,
};

export const ONNXRUNTIME: Backend = Object.freeze<Backend>({
  name: ONNXRUNTIME_BACKEND,
  hasModelFile: true,
  dependencies: () => [],
  ortSessions: true,
  bytesMayHoldNul: PARTS.bytesMayHoldNul,
  bind: () => (configured, version, budget, warmup, deps) =>
    startInstances(PARTS, configured, version, budget, warmup, deps),
});
