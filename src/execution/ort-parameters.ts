// The model-config `parameters` the ONNX Runtime backend reads for a session (Triton ORT backend
// README "Model Config Options"), parsed and checked once. Values are strings in the config; bad
// ones are CONFIG_INVALID naming the key, what was expected and what arrived.

import type { ModelConfig } from '../config/model-config.js';
import { fail } from '../errors.js';

export interface OrtModelParameters {
  /** 0 = not set (Triton: "ORT picks a default"); see thread-budget.ts for what infernode does. */
  readonly intraOpThreadCount: number;
  readonly interOpThreadCount: number;
  readonly executionMode: 'sequential' | 'parallel';
  /** Undefined = not set (ORT's default, on). */
  readonly enableMemArena: boolean | undefined;
  readonly enableMemPattern: boolean | undefined;
  /** Every `session.*` parameter, passed to ORT as a session config entry. */
  readonly configEntries: Readonly<Record<string, string>>;
  /** Parameters accepted but not applied, with the reason; the loader logs them. */
  readonly warnings: readonly string[];
}

/** Parses Triton's boolean strings (backend_common ParseBoolValue): true/on/1, false/off/0. */
export function parseBool(key: string, value: string): boolean {
  const v = value.toLowerCase();
  if (v === 'true' || v === 'on' || v === '1') return true;
  if (v === 'false' || v === 'off' || v === '0') return false;
  throw fail(
    'CONFIG_INVALID',
    `parameter "${key}": expected a boolean ("1"/"0", "true"/"false", "on"/"off"), got "${value}"`,
  );
}

/** Parses a non-negative decimal integer string (no sign, no exponent, no blanks). */
export function parseCount(key: string, value: string): number {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw fail('CONFIG_INVALID', `parameter "${key}": expected an integer >= 0, got "${value}"`);
  }
  return n;
}

/** Parses a (possibly negative) decimal integer string. */
export function parseInteger(key: string, value: string): number {
  const n = /^-?\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw fail('CONFIG_INVALID', `parameter "${key}": expected an integer, got "${value}"`);
  }
  return n;
}

/** The string value of a model parameter, or undefined when absent. */
export function modelParameter(config: ModelConfig, key: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(config.parameters, key)
    ? config.parameters[key]?.string_value
    : undefined;
}

/** Keys the ORT backend knows that infernode accepts without applying, and why. */
const NOT_APPLIED: Readonly<Record<string, string>> = {
  'memory.enable_memory_arena_shrinkage':
    'onnxruntime-node 1.30 has no run-option config entries, so arena shrinkage cannot be requested',
  share_session_between_instances:
    'each instance is a worker thread with its own session; sessions cannot be shared across threads',
};

export function readOrtParameters(config: ModelConfig): OrtModelParameters {
  const get = (key: string): string | undefined => modelParameter(config, key);

  const intra = get('intra_op_thread_count');
  const inter = get('inter_op_thread_count');
  const mode = get('execution_mode');
  if (mode !== undefined && mode !== '0' && mode !== '1') {
    throw fail('CONFIG_INVALID', `parameter "execution_mode": expected "0" or "1", got "${mode}"`);
  }
  const arena = get('enable_mem_arena');
  const pattern = get('enable_mem_pattern');

  const configEntries: Record<string, string> = {};
  const warnings: string[] = [];
  for (const key of Object.keys(config.parameters).sort()) {
    const value = get(key);
    if (value === undefined) continue;
    if (key.startsWith('session.')) configEntries[key] = value;
    const reason = NOT_APPLIED[key];
    if (reason !== undefined) warnings.push(`parameter "${key}" is not applied: ${reason}`);
  }

  return Object.freeze({
    intraOpThreadCount: intra === undefined ? 0 : parseCount('intra_op_thread_count', intra),
    interOpThreadCount: inter === undefined ? 0 : parseCount('inter_op_thread_count', inter),
    executionMode: mode === '1' ? 'parallel' : 'sequential',
    enableMemArena: arena === undefined ? undefined : parseBool('enable_mem_arena', arena),
    enableMemPattern: pattern === undefined ? undefined : parseBool('enable_mem_pattern', pattern),
    configEntries: Object.freeze(configEntries),
    warnings: Object.freeze(warnings),
  });
}
