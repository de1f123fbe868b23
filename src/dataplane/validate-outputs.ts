// The outputs a request asks for, checked against the model: names known and not repeated, no
// classification extension, each one's binary_data flag (binary_data_output for the unnamed ones),
// and the shared-memory region it is to be written to, if any (validate-region-tensors.ts).

import { fail } from '../errors.js';
import type { DecodedRequest } from '../protocol/inference-request.js';
import { refuseRepeatedNames } from '../protocol/tensor-names.js';
import type { ModelSignature } from '../repository/model-signature.js';
import type { ValidatedOutput } from '../scheduler/validated-request.js';
import { boolParam } from './validate-parameters.js';
import { regionOutput, type RegionsOf } from './validate-region-tensors.js';

/**
 * The outputs to return. As in Triton, `binary_data_output` is the kind of the outputs the request
 * does not name (all of them when it names none); a named output is binary only when its own
 * `binary_data` says so.
 */
export function validateOutputs(
  sig: ModelSignature,
  req: DecodedRequest,
  shm: RegionsOf,
): ValidatedOutput[] {
  const binaryDefault = boolParam(req.parameters, 'binary_data_output', false);
  if (req.outputs === undefined || req.outputs.length === 0) {
    return sig.outputOrder.map((name) => ({ name, binary: binaryDefault }));
  }
  refuseRepeatedNames(
    req.outputs.map((o) => o.name),
    'outputs',
  );
  return req.outputs.map((o) => {
    if (!sig.outputs.has(o.name)) {
      throw fail(
        'UNKNOWN_OUTPUT',
        `unexpected inference output '${o.name}' for model '${sig.name}'`,
      );
    }
    if (Object.hasOwn(o.parameters, 'classification')) {
      throw fail(
        'UNSUPPORTED',
        `output '${o.name}': the classification extension is not supported`,
      );
    }
    return regionOutput(shm, o, boolParam(o.parameters, 'binary_data', false));
  });
}
