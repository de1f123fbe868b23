// KServe `parameters` objects read from untrusted JSON: a null-prototype, frozen copy holding only
// string / number / boolean values. Also the own-property reads every envelope check goes through,
// so nothing inherited from Object.prototype is ever taken for request data.

import { fail } from '../errors.js';
import type { ParameterValue, Parameters } from './inference-request.js';

/** A JSON object (not an array, not null). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj[key]` only if `obj` has it as its own property; never a value from the prototype chain. */
export function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** What a JSON value is, for messages ("got an array"). */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  return `${typeof v === 'number' ? 'the number' : 'the boolean'} ${String(v)}`;
}

const EMPTY: Parameters = Object.freeze(Object.create(null) as Record<string, ParameterValue>);

export interface ParameterRules {
  /** Where the parameters sit, for messages: "request", "input INPUT0", "output OUT". */
  readonly where: string;
  /** Refuse keys starting with `triton_` (Triton does so for request-level parameters). */
  readonly reserveTritonPrefix: boolean;
}

/**
 * Copies a `parameters` member (absent = empty). Values must be strings, numbers or booleans.
 * The copy has no prototype, so a `__proto__` or `constructor` key is an ordinary key here and
 * cannot reach Object.prototype, even if a later reader copies it with assignment.
 */
export function readParameters(value: unknown, rules: ParameterRules): Parameters {
  if (value === undefined) return EMPTY;
  if (!isJsonObject(value)) {
    throw fail(
      'BAD_PARAMETER',
      `${rules.where} 'parameters' must be an object, got ${jsonKind(value)}`,
    );
  }
  const out = Object.create(null) as Record<string, ParameterValue>;
  for (const key of Object.keys(value)) {
    if (rules.reserveTritonPrefix && key.startsWith('triton_')) {
      throw fail(
        'BAD_PARAMETER',
        `${rules.where} parameter '${key.slice(0, 64)}': parameter keys starting with 'triton_' ` +
          `are reserved for Triton usage and should not be specified`,
      );
    }
    const v = value[key];
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
      throw fail(
        'BAD_PARAMETER',
        `${rules.where} parameter '${key.slice(0, 64)}' must be a string, number or boolean, ` +
          `got ${jsonKind(v)}`,
      );
    }
    // With no prototype there is no inherited `__proto__` setter: this creates an own key.
    out[key] = v;
  }
  return Object.freeze(out);
}
