// The model-config `parameters` keys the ONNX Runtime backend reads (ORT backend README "Model Config
// Options" and "Deprecated Parameters", onnxruntime.cc), with the form each value must take. Checked at
// load so a typo'd value fails the load naming the key; unknown keys are kept and reported.

import { fail } from '../errors.js';
import type { ModelConfig } from './model-config.js';

type Check = (value: string) => boolean;

/** backend_common ParseBoolValue: true/on/1 and false/off/0, any case. */
const isBool: Check = (v) => /^(true|on|1|false|off|0)$/i.test(v);
const isCount: Check = (v) => /^\d{1,15}$/.test(v);
const oneOf =
  (...allowed: string[]): Check =>
  (v) =>
    allowed.includes(v);
const anyString: Check = () => true;

interface KnownParameter {
  readonly check: Check;
  /** What the value must be, for the error message. */
  readonly expected: string;
}

const BOOL = { check: isBool, expected: 'a boolean ("1"/"0", "true"/"false", "on"/"off")' };
const COUNT = { check: isCount, expected: 'an integer >= 0' };

export const KNOWN_ORT_PARAMETERS: Readonly<Record<string, KnownParameter>> = {
  intra_op_thread_count: COUNT,
  inter_op_thread_count: COUNT,
  execution_mode: { check: oneOf('0', '1'), expected: '"0" (sequential) or "1" (parallel)' },
  enable_mem_arena: BOOL,
  enable_mem_pattern: BOOL,
  'memory.enable_memory_arena_shrinkage': { check: anyString, expected: 'a string' },
  // infernode's shorthand for the ORT session entry session.intra_op.allow_spinning.
  intra_op_spinning: BOOL,
  // Named in ORT backend issues; accepted so a config using it loads (each instance still gets
  // its own session: sessions cannot be shared across worker threads).
  share_session_between_instances: BOOL,
  // Deprecated top-level CUDA EP options, still read by the ORT backend for GPU instances.
  cudnn_conv_algo_search: { check: oneOf('0', '1', '2'), expected: '"0", "1" or "2"' },
  gpu_mem_limit: { check: (v) => /^\d{1,20}$/.test(v), expected: 'a byte count' },
  arena_extend_strategy: { check: oneOf('0', '1'), expected: '"0" or "1"' },
  do_copy_in_default_stream: BOOL,
};

/**
 * Throws CONFIG_INVALID for a known key with a malformed value; returns one warning per key the
 * ORT backend does not read (kept in the config, passed to nothing). `session.*` keys are ORT
 * session config entries and pass through as they are.
 */
export function validateParameters(config: ModelConfig): string[] {
  const warnings: string[] = [];
  for (const [key, { string_value: value }] of Object.entries(config.parameters)) {
    if (key.startsWith('session.') && key.length > 'session.'.length) continue;
    const known = Object.prototype.hasOwnProperty.call(KNOWN_ORT_PARAMETERS, key)
      ? KNOWN_ORT_PARAMETERS[key]
      : undefined;
    if (known === undefined) {
      warnings.push(
        `model '${config.name}': parameter "${key}" is not used by the onnxruntime backend; it is kept but has no effect`,
      );
      continue;
    }
    if (!known.check(value)) {
      throw fail(
        'CONFIG_INVALID',
        `model '${config.name}': parameter "${key}" expects ${known.expected}, got "${value}"`,
      );
    }
  }
  return warnings;
}
