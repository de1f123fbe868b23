// The JavaScript backend's config rules (`backend: "javascript"`, Triton's Python backend in JS): its
// name and model file names, what its config must say itself (there is no model file to
// auto-complete from), and the two parameters the server reads, `execute_timeout_ms` and
// `initialize_timeout_ms`. Every other `parameters` entry belongs to the model: it reaches
// `initialize()` inside `args.model_config`.

import { fail } from '../errors.js';
import type { ModelConfig } from './model-config.js';
import { COUNT, readParameter } from './parameter-value.js';

export const JAVASCRIPT_BACKEND = 'javascript';

/** Looked for in this order in a version directory when `default_model_filename` is not set. */
export const JAVASCRIPT_MODEL_FILENAMES = Object.freeze(['model.js', 'model.mjs'] as const);

/** The parameter bounding one `execute()` call (and `finalize()`), in milliseconds. */
export const EXECUTE_TIMEOUT_PARAMETER = 'execute_timeout_ms';
export const DEFAULT_EXECUTE_TIMEOUT_MS = 30_000;

/**
 * The parameter bounding the start of each instance's worker: importing the module, `initialize()`
 * and the warmup requests, in milliseconds. Triton bounds none of it (a Python model's initialize
 * may hang its load forever); here a stuck start fails the load instead. The default leaves room
 * for an initialize() that reads a large vocabulary or opens ONNX sessions on a loaded machine.
 */
export const INITIALIZE_TIMEOUT_PARAMETER = 'initialize_timeout_ms';
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 60_000;

/** What the server itself takes from a JavaScript model's config. */
export interface JavascriptParameters {
  /**
   * An `execute()` that has not settled after this long fails its requests and its worker is
   * replaced (a model stuck in a loop cannot be interrupted any other way).
   */
  readonly executeTimeoutMs: number;
  /**
   * A worker that has not reported ready (module imported, `initialize()` settled, warmup run)
   * after this long is terminated: at load, the load fails; for a replacement, it is retried.
   */
  readonly initializeTimeoutMs: number;
  /**
   * `model_transaction_policy { decoupled: true }` (also in the normalized config): each request gets a response sender and may be
   * answered 0..n times, then the final flag (docs/pipelines.md, "Decoupled models").
   */
  readonly decoupled: boolean;
}

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

/**
 * Reads `execute_timeout_ms` (an integer >= 1; default 30000) and `initialize_timeout_ms` (an
 * integer >= 1; default 60000); `decoupled` is the raw config's `model_transaction_policy.decoupled`
 * (the normalized config carries it too).
 */
export function readJavascriptParameters(
  config: ModelConfig,
  decoupled = false,
): JavascriptParameters {
  if (decoupled && config.sequence_batching !== undefined) {
    throw fail(
      'UNSUPPORTED',
      `model '${config.name}': a decoupled model with sequence_batching is not supported ` +
        `(the sequence batcher answers each request once)`,
    );
  }
  return Object.freeze({
    executeTimeoutMs: readMilliseconds(
      config,
      EXECUTE_TIMEOUT_PARAMETER,
      DEFAULT_EXECUTE_TIMEOUT_MS,
    ),
    initializeTimeoutMs: readMilliseconds(
      config,
      INITIALIZE_TIMEOUT_PARAMETER,
      DEFAULT_INITIALIZE_TIMEOUT_MS,
    ),
    decoupled,
  });
}

/** A timeout parameter: an integer >= 1, or `fallback` when the config does not set it. */
function readMilliseconds(config: ModelConfig, key: string, fallback: number): number {
  const text = config.parameters[key]?.string_value;
  if (text === undefined) return fallback;
  const ms = readParameter(key, text, COUNT);
  if (ms < 1) {
    throw fail('CONFIG_INVALID', `parameter "${key}": expected an integer >= 1, got "${text}"`);
  }
  return ms;
}
