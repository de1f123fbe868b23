// How the onnxruntime backend reads its string-valued parameters as typed values (backend_common's
// ParseBoolValue and integer parsing): each reader returns the value, or undefined when the text is
// not one, and names what it expects, so every caller's error says what was expected and what arrived.

import { fail } from '../errors.js';

/** A value an ORT execution provider option can take. */
export type OptionValue = string | number | boolean;

export interface ValueReader<T> {
  readonly read: (text: string) => T | undefined;
  /** What the text must be, for messages: `expected ${expected}, got "${text}"`. */
  readonly expected: string;
}

/** true/on/1 and false/off/0, in any case, as backend_common ParseBoolValue accepts them. */
export const BOOL: ValueReader<boolean> = {
  read: (text) => {
    const v = text.toLowerCase();
    if (v === 'true' || v === 'on' || v === '1') return true;
    if (v === 'false' || v === 'off' || v === '0') return false;
    return undefined;
  },
  expected: 'a boolean ("1"/"0", "true"/"false", "on"/"off")',
};

/** A non-negative decimal integer: no sign, exponent or blanks; 15 digits keep it exact. */
export const COUNT: ValueReader<number> = {
  read: (text) => (/^\d{1,15}$/.test(text) ? Number(text) : undefined),
  expected: 'an integer >= 0',
};

/** A decimal integer that may be negative. */
export const INTEGER: ValueReader<number> = {
  read: (text) => (/^-?\d{1,15}$/.test(text) ? Number(text) : undefined),
  expected: 'an integer',
};

/** Any text, kept as it is. */
export const TEXT: ValueReader<string> = { read: (text) => text, expected: 'a string' };

/** One of a fixed set of spellings, each standing for a value. */
export function choice<T>(values: Readonly<Record<string, T>>, expected: string): ValueReader<T> {
  return {
    read: (text) => (Object.prototype.hasOwnProperty.call(values, text) ? values[text] : undefined),
    expected,
  };
}

/** An accelerator parameter read through `reader`; CONFIG_INVALID naming the key when it is not one. */
export function readParameter<T>(key: string, text: string, reader: ValueReader<T>): T {
  const value = reader.read(text);
  if (value === undefined) {
    throw fail('CONFIG_INVALID', `parameter "${key}": expected ${reader.expected}, got "${text}"`);
  }
  return value;
}
