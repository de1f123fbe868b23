// The JavaScript backend's config rules (`backend: "javascript"`, Triton's Python backend in JS): its
// name and model file names, and what its config must say itself (there is no model file to
// auto-complete from), which validation checks in its order. The two parameters the server reads
// are the backend's own (repository/backends/javascript/javascript-parameters.ts).

import { fail } from '../errors.js';
import type { ModelConfig } from './model-config.js';

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
