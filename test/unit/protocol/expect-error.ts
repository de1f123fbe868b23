// Assertion helpers shared by the protocol codec tests: "this throws a catalogued error with this
// code (and this exact message)".

import assert from 'node:assert/strict';
import { InferenceServerError, type ErrorCode } from '../../../src/errors.js';

/** Asserts `fn` throws an InferenceServerError with `code`, and `message` if given (string = exact). */
export function throwsCode(fn: () => unknown, code: ErrorCode, message?: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InferenceServerError, `expected InferenceServerError, got ${String(e)}`);
    assert.equal(e.code, code, `code of: ${e.message}`);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Bytes of a JSON document (JSON.stringify, so no NaN tokens). */
export const jsonBytes = (v: unknown): Uint8Array => utf8(JSON.stringify(v));

/** Little-endian bytes of a typed array (the hosts these tests run on are little-endian). */
export const bytesOf = (v: ArrayBufferView): Uint8Array =>
  new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
