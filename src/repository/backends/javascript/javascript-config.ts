// The JavaScript backend's part in the config pipeline (config/backend-rules.ts; `backend:
// "javascript"`, Triton's Python backend in JS): its name and model file names, that it may be
// decoupled, that its instances are worker threads (one per CPU group by default, never a GPU), and
// what its config must say itself (there is no model file to auto-complete from). The two
// parameters the server reads are the backend's own (javascript-parameters.ts).

import type { BackendConfigRules } from '../../../config/backend-rules.js';
import type { ModelConfig } from '../../../config/model-config.js';
import { fail } from '../../../errors.js';
import {
  refuseOptionalWhenBatching,
  refuseOrtlessDatatype,
} from '../../../execution/onnxruntime/config/ort-config-rules.js';

export const JAVASCRIPT_BACKEND = 'javascript';

/** Looked for in this order in a version directory when `default_model_filename` is not set. */
export const JAVASCRIPT_MODEL_FILENAMES = Object.freeze(['model.js', 'model.mjs'] as const);

/**
 * The config rules a JavaScript model must meet beyond the common ones: inputs and outputs listed,
 * CPU instances only, no ONNX Runtime settings. Throws CONFIG_INVALID naming what is wrong.
 */
export function validateJavascriptConfig(config: ModelConfig): void {
  const name = config.name;
  if (config.platform !== '') {
    throw fail(
      'CONFIG_INVALID',
      `model '${name}': backend "${JAVASCRIPT_BACKEND}" takes no platform, got "${config.platform}"`,
    );
  }
  if (config.input.length === 0 || config.output.length === 0) {
    throw fail(
      'CONFIG_INVALID',
      `model '${name}': a backend "${JAVASCRIPT_BACKEND}" config must list its inputs and outputs ` +
        `(got ${config.input.length} input(s) and ${config.output.length} output(s)); there is ` +
        `no model file to auto-complete them from`,
    );
  }
  for (const [i, g] of config.instance_group.entries()) {
    if (g.kind !== 'KIND_CPU') {
      throw fail(
        'CONFIG_INVALID',
        `model '${name}': instance_group[${i}] has kind ${g.kind}; a backend ` +
          `"${JAVASCRIPT_BACKEND}" model runs on worker threads, so only KIND_CPU is possible`,
      );
    }
  }
  if (config.optimization?.execution_accelerators !== undefined) {
    throw fail(
      'CONFIG_INVALID',
      `model '${name}': optimization.execution_accelerators are ONNX Runtime settings; a ` +
        `backend "${JAVASCRIPT_BACKEND}" model has none`,
    );
  }
}

export const JAVASCRIPT_CONFIG_RULES: BackendConfigRules = Object.freeze<BackendConfigRules>({
  backend: JAVASCRIPT_BACKEND,
  platforms: Object.freeze(['']),
  serves: `JavaScript models (backend "${JAVASCRIPT_BACKEND}")`,
  modelFilenames: JAVASCRIPT_MODEL_FILENAMES,
  mayBeDecoupled: true,
  // A JavaScript model runs on worker threads whatever the machine has.
  instances: Object.freeze({ gpu: false, defaultCpuCount: 1 }),
  checkConfig: validateJavascriptConfig,
  // ONNX Runtime's two tensor rules have always applied to every model (ort-config-rules.ts).
  checkTensorType: refuseOrtlessDatatype,
  checkTensor: refuseOptionalWhenBatching,
});
