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
    throw fail(
      'BAD_REQUEST',
      `a raw binary request (Inference-Header-Content-Length: 0) needs a model with exactly 1 ` +
        `input; model '${sig.name}' has ${inputs.length}`,
    );
  }
  const batch = sig.maxBatchSize > 0 ? [1] : [];
  let dims: number[];
  const size = datatypeInfo(input.datatype).byteSize;
  if (size === 0) {
    if (input.dims.length !== 1 || (input.dims[0] !== 1 && input.dims[0] !== -1)) {
      throw fail(
        'BAD_SHAPE',
        `a raw binary BYTES input must have shape [1]; input '${input.name}' has ${shapeText(input.dims)}`,
      );
    }
    dims = [1];
    // The whole body is the one element, as in Triton: it gets its length prefix here.
    const element = new Uint8Array(4 + body.byteLength);
    new DataView(element.buffer).setUint32(0, body.byteLength, true);
    element.set(body, 4);
    body = element;
  } else {
    const variable = input.dims.filter((d) => d === -1).length;
    if (variable > 1) {
      throw fail(
        'BAD_SHAPE',
        `a raw binary request allows at most 1 variable dimension; input '${input.name}' has ` +
          `${shapeText(input.dims)}`,
      );
    }
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
