// Triton's raw binary request (`Inference-Header-Content-Length: 0`) resolved against a model: the
// body is the bytes of the model's only input, treated as batch 1 (for a BYTES input, the whole
// body is its one element), and every output comes back binary. Validation calls this before checking the request like any other.

import { datatypeInfo } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import type { ModelSignature } from '../repository/model-signature.js';
import type { DecodedRequest } from '../protocol/inference-request.js';
import { shapeText } from '../tensor/shape.js';

export function rawBinaryRequest(sig: ModelSignature, body: Uint8Array): DecodedRequest {
  const inputs = [...sig.inputs.values()];
  const input = inputs[0];
  if (inputs.length !== 1 || input === undefined) {
    // Triton's wording (core infer_request.cc); a raw request always carries exactly one input.
    throw fail(
      'BAD_REQUEST',
      `Raw request must only have 1 input (found 1) to be deduced but got ${inputs.length} ` +
        `inputs in '${sig.name}' model configuration`,
    );
  }
  // Checked first whatever the datatype, as Triton does.
  if (input.dims.filter((d) => d === -1).length > 1) {
    throw fail(
      'BAD_SHAPE',
      `The shape of the raw input '${input.name}' can not be deduced because there are more ` +
        'than one variable-sized dimension',
    );
  }
  const batch = sig.maxBatchSize > 0 ? [1] : [];
  let dims: number[];
  const size = datatypeInfo(input.datatype).byteSize;
  if (size === 0) {
    // Exactly one element, fixed by the configuration: a variable dimension could hold any count.
    if (input.dims.some((d) => d === -1) || input.dims.reduce((a, d) => a * d, 1) !== 1) {
      throw fail(
        'BAD_SHAPE',
        `For BYTE datatype raw input '${input.name}', the model must have input shape [1]`,
      );
    }
    dims = [...input.dims];
    // The whole body is the one element, as in Triton: it gets its length prefix here.
    const element = new Uint8Array(4 + body.byteLength);
    new DataView(element.buffer).setUint32(0, body.byteLength, true);
    element.set(body, 4);
    body = element;
  } else {
    const fixed = input.dims.reduce((a, d) => (d === -1 ? a : a * d), 1) * size;
    if (fixed === 0 || body.byteLength % fixed !== 0) {
      throw fail(
        'BYTE_SIZE_MISMATCH',
        `raw binary input '${input.name}' ${shapeText(input.dims)} ${input.datatype}: ` +
          `${body.byteLength} bytes is not a whole number of elements`,
      );
    }
    dims = input.dims.map((d) => (d === -1 ? body.byteLength / fixed : d));
  }
  return {
    parameters: { binary_data_output: true },
    inputs: [
      {
        name: input.name,
        datatype: input.datatype,
        shape: [...batch, ...dims],
        parameters: {},
        data: { kind: 'raw', bytes: body },
      },
    ],
  };
}
