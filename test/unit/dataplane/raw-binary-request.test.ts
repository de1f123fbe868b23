// Triton's raw binary request (Inference-Header-Content-Length: 0) resolved against a model: the
// body is its one input's bytes; for a BYTES input the whole body is the one element (as Triton
// takes it), never parsed as length-prefixed elements.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateRequest } from '../../../src/dataplane/validate-request.js';
import { InferenceServerError } from '../../../src/errors.js';
import { MODELS } from './validation-models.js';

const ctx = { signal: new AbortController().signal, arrivalNs: 0, maxInputBytes: 1 << 20 };
const written = (n: number, write: (t: Uint8Array) => void): Buffer => {
  const target = new Uint8Array(n);
  write(target);
  return Buffer.from(target);
};

void describe('raw binary requests', () => {
  void it('takes the whole body as the one BYTES element', () => {
    const body = new TextEncoder().encode('hello world');
    const v = validateRequest(MODELS.string1, { rawBinary: body }, ctx);
    const input = v.inputs[0];
    assert.deepEqual(input?.shape, [1, 1]);
    assert.equal(input?.byteLength, 4 + body.byteLength);
    const bytes = written(input?.byteLength ?? 0, (t) => input?.write(t));
    assert.equal(bytes.readUInt32LE(0), 11);
    assert.equal(bytes.subarray(4).toString(), 'hello world');
    assert.deepEqual(
      v.outputs.map((o) => o.binary),
      [true],
      'every output comes back binary',
    );
  });

  void it('a body that looks like a length prefix is still one element', () => {
    const body = Uint8Array.of(0xff, 0xff, 0xff, 0x7f, 1, 2);
    const v = validateRequest(MODELS.string1, { rawBinary: body }, ctx);
    const input = v.inputs[0];
    const bytes = written(input?.byteLength ?? 0, (t) => input?.write(t));
    assert.deepEqual([...bytes.subarray(4)], [...body]);
  });

  void it('an empty body is one empty element', () => {
    const v = validateRequest(MODELS.string1, { rawBinary: new Uint8Array(0) }, ctx);
    assert.equal(v.inputs[0]?.byteLength, 4);
  });

  void it("refuses, in Triton's words, what it cannot deduce a shape for", () => {
    const refusal = (model: keyof typeof MODELS, bytes = 16): string => {
      try {
        validateRequest(MODELS[model], { rawBinary: new Uint8Array(bytes) }, ctx);
      } catch (error) {
        assert.ok(error instanceof InferenceServerError);
        assert.equal(error.status, 400);
        return error.message;
      }
      assert.fail(`expected ${model} to refuse a raw binary request`);
    };
    assert.equal(
      refusal('strings'),
      "For BYTE datatype raw input 's', the model must have input shape [1]",
    );
    assert.equal(
      refusal('matrix'),
      "The shape of the raw input 'm' can not be deduced because there are more than one " +
        'variable-sized dimension',
    );
    assert.equal(
      refusal('simple'),
      "Raw request must only have 1 input (found 1) to be deduced but got 2 inputs in 'simple' " +
        'model configuration',
    );
  });
});
