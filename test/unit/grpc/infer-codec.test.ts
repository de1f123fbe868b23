// The gRPC codec without a server: both tensor spellings into one DecodedRequest, parameters both
// ways, the refusals of mixed or miscounted spellings, and responses copied out of shared memory.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  decodeInferRequest,
  decodeParameters,
  encodeInferResponse,
  encodeParameters,
  type ModelInferRequest,
} from '../../../src/grpc/infer-codec.js';
import { tritonServices } from '../../../src/grpc/grpc-protos.js';
import { contentsToRaw } from '../../../src/grpc/tensor-contents.js';

const request = (over: Partial<ModelInferRequest>): ModelInferRequest => ({
  model_name: 'm',
  model_version: '',
  id: '',
  inputs: [],
  outputs: [],
  raw_input_contents: [],
  ...over,
});

/**
 * A ModelInferRequest as the server receives it: `parameters` (InferParameter messages) encoded with
 * the vendored protos and decoded with the server's loader options (int64s as decimal strings).
 */
function overTheWire(parameters: Record<string, object>): ModelInferRequest {
  const method = tritonServices().inference['ModelInfer'];
  if (method === undefined) throw new Error('no ModelInfer in the protos');
  const bytes = method.requestSerialize({
    model_name: 'm',
    parameters,
    inputs: [{ name: 'I', datatype: 'INT32', shape: [1] }],
    raw_input_contents: [Buffer.alloc(4)],
  });
  return method.requestDeserialize(bytes) as ModelInferRequest;
}

const refusedWith = (code: string, message: RegExp) => (e: unknown) => {
  assert.ok(e instanceof InferenceServerError);
  assert.equal(e.code, code);
  assert.match(e.message, message);
  return true;
};

void describe('gRPC infer codec', () => {
  void it('decodes raw and typed inputs to the same raw bytes', () => {
    const raw = Buffer.from(new Int32Array([1, -2, 3]).buffer);
    const a = decodeInferRequest(
      request({
        id: 'x',
        inputs: [{ name: 'I', datatype: 'INT32', shape: ['1', '3'] }],
        raw_input_contents: [raw],
      }),
    );
    const b = decodeInferRequest(
      request({
        inputs: [
          {
            name: 'I',
            datatype: 'INT32',
            shape: ['1', '3'],
            contents: { int_contents: [1, -2, 3] },
          },
        ],
      }),
    );
    assert.equal(a.id, 'x');
    assert.equal(b.id, undefined);
    assert.deepEqual(a.inputs[0]?.shape, [1, 3]);
    const bytes = (d: unknown) => [...(d as { bytes: Uint8Array }).bytes];
    assert.deepEqual(bytes(a.inputs[0]?.data), bytes(b.inputs[0]?.data));
    assert.deepEqual(bytes(a.inputs[0]?.data), [...raw]);
    assert.equal(a.outputs, undefined, 'no outputs named: every output');
  });

  void it('keeps full 64-bit integers from decimal strings', () => {
    const bytes = contentsToRaw('I', 'INT64', { int64_contents: ['-9223372036854775808', '7'] });
    assert.deepEqual([...new BigInt64Array(bytes.buffer, bytes.byteOffset, 2)], [-(2n ** 63n), 7n]);
  });

  void it('refuses both spellings at once and a miscounted raw_input_contents', () => {
    const input = { name: 'I', datatype: 'INT32', shape: [1], contents: { int_contents: [1] } };
    assert.throws(
      () => decodeInferRequest(request({ inputs: [input], raw_input_contents: [Buffer.alloc(4)] })),
      refusedWith('BAD_REQUEST', /contents must not be set when raw_input_contents is used/),
    );
    assert.throws(
      () =>
        decodeInferRequest(
          request({
            inputs: [input, { ...input, name: 'J' }],
            raw_input_contents: [Buffer.alloc(4)],
          }),
        ),
      refusedWith('BAD_REQUEST', /1 entries for 2 inputs/),
    );
  });

  void it('refuses a tensor name given twice, as the other codecs do', () => {
    const input = { name: 'I', datatype: 'INT32', shape: [1], contents: { int_contents: [1] } };
    assert.throws(
      () => decodeInferRequest(request({ inputs: [input, input] })),
      refusedWith('DUPLICATE_TENSOR', /input 'I' already exists in request/),
    );
    assert.throws(
      () =>
        decodeInferRequest(request({ inputs: [input], outputs: [{ name: 'O' }, { name: 'O' }] })),
      refusedWith('DUPLICATE_TENSOR', /output 'O' already exists in request/),
    );
  });

  void it('maps parameters both ways and refuses an unsafe int64', () => {
    const p = decodeParameters({
      a: { parameter_choice: 'bool_param', bool_param: true },
      b: { parameter_choice: 'int64_param', int64_param: '42' },
      c: { parameter_choice: 'string_param', string_param: 's' },
      d: { parameter_choice: 'double_param', double_param: 0.5 },
    });
    assert.deepEqual({ ...p }, { a: true, b: 42, c: 's', d: 0.5 });
    assert.deepEqual(encodeParameters(p), {
      a: { bool_param: true },
      b: { int64_param: 42 },
      c: { string_param: 's' },
      d: { double_param: 0.5 },
    });
    assert.throws(
      () =>
        decodeParameters({
          x: { parameter_choice: 'int64_param', int64_param: '9007199254740993' },
        }),
      refusedWith(
        'BAD_PARAMETER',
        /^parameter 'x': int64_param must be within ±\(2\^53-1\) \(9007199254740991\), got 9007199254740993$/,
      ),
    );
  });

  void it('carries sequence_id as int64_param, uint64_param or string_param, and the flags', () => {
    const decoded = (parameters: Record<string, object>) => ({
      ...decodeInferRequest(overTheWire(parameters)).parameters,
    });
    assert.deepEqual(
      decoded({
        sequence_id: { int64_param: 42 },
        sequence_start: { bool_param: true },
        sequence_end: { bool_param: false },
      }),
      { sequence_id: 42, sequence_start: true, sequence_end: false },
    );
    assert.deepEqual(decoded({ sequence_id: { uint64_param: '9007199254740991' } }), {
      sequence_id: 2 ** 53 - 1,
    });
    assert.deepEqual(decoded({ sequence_id: { string_param: 'user-7' } }), {
      sequence_id: 'user-7',
    });
    // Every other kind of parameter still maps as before.
    assert.deepEqual(decoded({ ratio: { double_param: 0.25 }, n: { uint64_param: 3 } }), {
      ratio: 0.25,
      n: 3,
    });
  });

  void it('refuses a sequence_id past 2^53-1, negative, or of the wrong kind', () => {
    const refused = (parameters: Record<string, object>, message: string) =>
      assert.throws(
        () => decodeInferRequest(overTheWire(parameters)),
        (e: unknown) => {
          assert.ok(e instanceof InferenceServerError);
          assert.deepEqual([e.code, e.message], ['BAD_PARAMETER', message]);
          return true;
        },
      );
    // The digits in the message are the ones sent, not a rounded double.
    refused(
      { sequence_id: { uint64_param: '18446744073709551615' } },
      "parameter 'sequence_id': uint64_param must be within ±(2^53-1) (9007199254740991), got " +
        '18446744073709551615',
    );
    refused(
      { sequence_id: { int64_param: '-1' } },
      "request parameter 'sequence_id' must be an integer >= 0 or a string, got the number -1",
    );
    refused(
      { sequence_id: { double_param: 4 } },
      "request parameter 'sequence_id' must be an int64_param, uint64_param or string_param, " +
        'got double_param',
    );
    refused(
      { sequence_start: { string_param: 'yes' } },
      "request parameter 'sequence_start' must be a boolean, got a string",
    );
    refused(
      { sequence_end: { int64_param: 1 } },
      "request parameter 'sequence_end' must be a boolean, got the number 1",
    );
  });

  void it('copies output bytes, so the shared-memory slot can be reused', () => {
    const shared = new Uint8Array(new SharedArrayBuffer(4));
    shared.set([1, 2, 3, 4]);
    const msg = encodeInferResponse({
      model_name: 'm',
      model_version: '1',
      id: 'r',
      outputs: [{ name: 'O', datatype: 'UINT8', shape: [4], data: shared, binary: false }],
    });
    shared.fill(0);
    assert.deepEqual([...(msg.raw_output_contents[0] as Uint8Array)], [1, 2, 3, 4]);
    assert.equal(msg.id, 'r');
    assert.deepEqual(msg.outputs[0]?.shape, [4]);
  });
});
