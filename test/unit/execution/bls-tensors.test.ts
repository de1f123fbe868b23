// The BLS channel's codecs: a call's inputs in the JS tensor mapping -> shared-memory descriptors ->
// the data plane's request, and a response's outputs -> the tensors the caller reads; plus the
// message guards the channel's listeners filter with.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  answerOf,
  callRequest,
  packCallInputs,
  readCallOptions,
  resultOf,
} from '../../../src/execution/javascript/bls-tensors.js';
import {
  isMainToWorker,
  isWorkerToMain,
  type BlsCall,
} from '../../../src/execution/javascript/channel-messages.js';

void describe('BLS tensors', () => {
  void it('packs typed arrays, plain arrays and strings into shared memory, and reads them back', () => {
    const inputs = packCallInputs({
      A: { datatype: 'FP32', shape: [1, 2], data: new Float32Array([1.5, -2]) },
      B: { datatype: 'INT64', shape: [2], data: [3, 4n] },
      T: { datatype: 'BYTES', shape: [2], data: ['hé', Uint8Array.of(7)] },
    });
    assert.deepEqual(
      inputs.map((d) => [d.name, d.datatype, d.shape, d.buffer instanceof SharedArrayBuffer]),
      [
        ['A', 'FP32', [1, 2], true],
        ['B', 'INT64', [2], true],
        ['T', 'BYTES', [2], true],
      ],
    );
    const call: BlsCall = {
      type: 'call',
      id: 1,
      stream: false,
      model: 'm',
      inputs,
      parameters: {},
    };
    const request = callRequest(call);
    assert.equal(request.outputs, undefined);
    // The data plane's response carries raw bytes; the caller gets the JS mapping back.
    const result = resultOf(
      answerOf({
        model_name: 'm',
        model_version: '1',
        outputs: request.inputs.map((i) => ({
          name: i.name,
          datatype: i.datatype as 'FP32',
          shape: i.shape as number[],
          data: (i.data as { bytes: Uint8Array }).bytes,
          binary: false,
        })),
      }),
    );
    assert.deepEqual([...(result.outputs.A?.data as Float32Array)], [1.5, -2]);
    assert.deepEqual([...(result.outputs.B?.data as BigInt64Array)], [3n, 4n]);
    assert.deepEqual(result.outputs.T?.strings, ['hé', '\x07']);
  });

  void it('passes a TypedArray already in shared memory as it is (no copy)', () => {
    const shared = new Int32Array(new SharedArrayBuffer(16), 0, 4).fill(9);
    const [d] = packCallInputs({ X: { datatype: 'INT32', shape: [4], data: shared } });
    assert.equal(d?.buffer, shared.buffer);
  });

  void it('refuses bad inputs and options with catalogued codes', () => {
    const code = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        assert.ok(e instanceof InferenceServerError);
        return e.code;
      }
      return 'none';
    };
    assert.equal(
      code(() => packCallInputs([1])),
      'BAD_REQUEST',
    );
    assert.equal(
      code(() => packCallInputs({ X: { datatype: 'F32', shape: [1], data: [1] } })),
      'BAD_DATATYPE',
    );
    assert.equal(
      code(() => packCallInputs({ X: { datatype: 'FP32', shape: [-1], data: [1] } })),
      'BAD_SHAPE',
    );
    assert.equal(
      code(() => packCallInputs({ X: { datatype: 'FP32', shape: [2], data: [1] } })),
      'BAD_TENSOR_DATA',
    );
    assert.equal(
      code(() => readCallOptions({ timeoutMs: 0 })),
      'BAD_PARAMETER',
    );
    assert.deepEqual(readCallOptions({ version: 2, outputs: ['Y'] }), {
      version: '2',
      outputs: ['Y'],
      parameters: {},
    });
  });

  void it('tells channel messages apart', () => {
    assert.ok(isWorkerToMain({ type: 'call', id: 1, model: 'm' }));
    assert.ok(isWorkerToMain({ type: 'final', run: 1, member: 0 }));
    assert.ok(!isWorkerToMain({ type: 'infernode:session-ready' }));
    assert.ok(isMainToWorker({ type: 'reply', id: 1, ok: true }));
    assert.ok(!isMainToWorker({ type: 'call', id: 1 }));
  });
});
