// The error a BLS call answers with, as a value: `context.infer` resolves to it (and
// `context.inferStream` yields it) instead of throwing, as Triton's Python BLS returns an
// InferenceResponse whose `has_error()` is true. An Error, so a model may return it as its own
// response or throw it; `code` is the callee's catalog code (MODEL_NOT_FOUND, BAD_SHAPE, ...).

import type { WireError } from '../../errors.js';

export class InferError extends Error {
  override readonly name = 'InferError';

  constructor(
    /** A code of the error catalog (src/errors.ts). */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  static fromWire(e: WireError): InferError {
    return new InferError(e.code, e.message);
  }
}
