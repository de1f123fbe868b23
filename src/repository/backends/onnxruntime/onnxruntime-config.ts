// The ONNX Runtime backend's part in the config pipeline (config/backend-rules.ts): backend
// "onnxruntime" with platform "onnxruntime_onnx" (or none), autocomplete from the model file, two instances per CPU group by default
// (Triton's SetDefaultInstanceCount), GPU instances when GPUs are available, never decoupled, and its
// own rules on data types, optional inputs and instance kinds (execution/onnxruntime/config/).

import { ONNXRUNTIME_BACKEND, ONNXRUNTIME_PLATFORM } from '../../../config/autocomplete.js';
import type { BackendConfigRules } from '../../../config/backend-rules.js';
import { autocompleteFromModel } from '../../../execution/onnxruntime/config/ort-autocomplete.js';
import {
  refuseKindModel,
  refuseOptionalWhenBatching,
  refuseOrtlessDatatype,
} from '../../../execution/onnxruntime/config/ort-config-rules.js';

export const ONNXRUNTIME_CONFIG_RULES: BackendConfigRules = Object.freeze<BackendConfigRules>({
  backend: ONNXRUNTIME_BACKEND,
  platforms: Object.freeze(['', ONNXRUNTIME_PLATFORM]),
  serves: `ONNX models (backend "${ONNXRUNTIME_BACKEND}", platform "${ONNXRUNTIME_PLATFORM}")`,
  // Core autocomplete names the model file (model.onnx); this one reads it for missing inputs/outputs.
  autocomplete: autocompleteFromModel,
  // Every request to an ONNX model gets exactly one response.
  mayBeDecoupled: false,
  instances: Object.freeze({ gpu: true, defaultCpuCount: 2 }),
  checkTensorType: refuseOrtlessDatatype,
  checkTensor: refuseOptionalWhenBatching,
  checkInstanceGroup: refuseKindModel,
});
