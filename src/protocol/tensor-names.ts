// The one rule on tensor names within a request: an input or an output may be named only once
// (which copy would the model get?). Every codec and validation refuse a repeat with this code and
// message, so the answer is the same whichever transport the request came in on.

import { fail, type InferenceServerError } from '../errors.js';

/** DUPLICATE_TENSOR for `name` repeated in the request's `what` list, in Triton's words. */
export function repeatedNameError(name: string, what: 'inputs' | 'outputs'): InferenceServerError {
  return fail(
    'DUPLICATE_TENSOR',
    `${what === 'inputs' ? 'input' : 'output'} '${name}' already exists in request`,
  );
}

/** Throws `repeatedNameError` for the first name that appears twice. */
export function refuseRepeatedNames(names: Iterable<string>, what: 'inputs' | 'outputs'): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw repeatedNameError(name, what);
    seen.add(name);
  }
}
