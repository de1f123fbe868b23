// Errors leaving a worker: every failure becomes plain `{code, message}` data (structured clone drops
// an Error's class), and ORT's messages are scrubbed of file-system paths before they can reach a
// client (ORT puts the model path and its own source file names into many of them).

import type { ErrorCode, WireError } from '../errors.js';
import { InferenceServerError } from '../errors.js';

// An absolute path: starts at a non-word boundary with `/` or a drive letter, and has at least two
// separators, so "inputs/outputs" or "a / b" in a sentence are left alone.
const ABSOLUTE_PATH = /(?<![\w.])(?:[A-Za-z]:)?[\\/](?:[^\s'"`:,;()[\]]+[\\/])+[^\s'"`:,;()[\]]*/g;

// ORT prefixes some messages with "<source file>:<line> <C++ signature> ": noise for a client. A
// kernel that fails inside session.run puts the same prefix after "Status Message: ".
const SOURCE_PREFIX = /(^|Status Message: )<path>:\d+ [^\n]*?\) (?=\S)/;

/**
 * Makes `message` safe for a client: `modelPath` becomes `displayPath` (e.g. `simple/1/model.onnx`),
 * any other absolute path becomes `<path>`, and ORT's source-location prefix is dropped (at the start,
 * or after a failed kernel's "Status Message: ").
 */
export function scrubMessage(message: string, modelPath: string, displayPath: string): string {
  let m = modelPath.length > 0 ? message.split(modelPath).join(displayPath) : message;
  m = m.replace(ABSOLUTE_PATH, '<path>');
  m = m.replace(SOURCE_PREFIX, '$1');
  return m.trim();
}

/** Any thrown value -> wire error: catalogued errors keep their code, anything else gets `code`. */
export function toWireError(
  e: unknown,
  code: ErrorCode,
  context: { readonly modelPath: string; readonly displayPath: string },
): WireError {
  if (e instanceof InferenceServerError) {
    return {
      code: e.code,
      message: scrubMessage(e.message, context.modelPath, context.displayPath),
    };
  }
  const raw = e instanceof Error ? e.message : String(e);
  return { code, message: scrubMessage(raw, context.modelPath, context.displayPath) };
}
