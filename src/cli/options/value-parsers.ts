// The small parsers of one flag's text: booleans and whole numbers, each refusal naming the flag,
// what it expects and what arrived.

import { fail } from '../../errors.js';

/** true/false, 1/0, yes/no, on/off, in any case. */
export function isBool(v: string | undefined): v is string {
  return v !== undefined && /^(true|false|1|0|yes|no|on|off)$/i.test(v);
}

export function parseBool(name: string, v: string): boolean {
  if (!isBool(v)) throw fail('BAD_REQUEST', `--${name}: expected true or false, got '${v}'`);
  return ['true', '1', 'yes', 'on'].includes(v.toLowerCase());
}

/** A whole number from 0 to `max`, digits only (no sign, no exponent, no spaces). */
export function parseUint(name: string, v: string, max = Number.MAX_SAFE_INTEGER): number {
  const x = Number(v);
  if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(x) || x > max) {
    throw fail('BAD_REQUEST', `--${name}: expected an integer between 0 and ${max}, got '${v}'`);
  }
  return x;
}

export function refuseZero(name: string, value: number): number {
  if (value === 0) throw fail('BAD_REQUEST', `--${name}: expected an integer >= 1, got 0`);
  return value;
}

/**
 * As parseUint, refusing 0 and negative integers in Triton's words (Triton reads the flag as a
 * signed integer, so both reach its check; 0 would refuse every request body).
 */
export function parseAboveZero(name: string, v: string): number {
  const refused = fail('BAD_REQUEST', `Error: --${name} must be greater than 0.`);
  if (/^-[0-9]+$/.test(v.trim())) throw refused;
  const x = parseUint(name, v);
  if (x === 0) throw refused;
  return x;
}
