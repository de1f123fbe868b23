// What the JavaScript backend reads from its model's config, once, when the model is configured
// (JAVASCRIPT.bind): `execute_timeout_ms`, `initialize_timeout_ms` and whether it is decoupled.
// Every other `parameters` entry belongs to the model: it reaches `initialize()` inside
// `args.model_config`, and no ONNX Runtime reader sees it.

import type { ModelConfig } from '../../../config/model-config.js';
import { graphLevel } from '../../../execution/onnxruntime/config/ort-parameters.js';
import { COUNT, readParameter } from '../../../config/parameter-value.js';
import { fail } from '../../../errors.js';

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
 * Reads `execute_timeout_ms` (an integer >= 1; default 30000) and `initialize_timeout_ms` (an
 * integer >= 1; default 60000); `decoupled` is the config's `model_transaction_policy.decoupled`.
 */
export function readJavascriptParameters(config: ModelConfig): JavascriptParameters {
  // The pipeline has always refused a graph level outside ORT's for every model, this one's too.
  graphLevel(config);
  const decoupled = config.model_transaction_policy.decoupled;
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
