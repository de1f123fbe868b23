// The JavaScript backend's marshalling without a worker: a batch block cut into per-member request
// objects (typed-array views, BigInt64, BYTES as element views and strings), responses checked
// against the config and packed into one block, and one whole run through a model object.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { buildRequests } from '../../../src/execution/javascript/js-requests.js';
import {
  checkResponse,
  packResponses,
  type ResponseRules,
} from '../../../src/execution/javascript/js-responses.js';
import { runJsModel, type RunContext } from '../../../src/execution/javascript/js-run.js';
import type { JsModel } from '../../../src/execution/javascript/js-model-module.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import { byteView, typedView } from '../../../src/memory/views.js';
import { bytesElements, encodeBytesTensor } from '../../../src/tensor/bytes-tensor.js';
import type { TensorDescriptor } from '../../../src/tensor/tensor.js';
import { BlsClient } from '../../../src/execution/javascript/bls-client.js';

/** One block holding FP32 [3,2], INT64 [3,1] and BYTES [3,1] inputs (3 rows). */
function batchBlock(): readonly TensorDescriptor[] {
  const text = encodeBytesTensor(['a', 'héllo', '']);
  const block = TensorBlock.allocate([
    { name: 'X', datatype: 'FP32', shape: [3, 2] },
    { name: 'N', datatype: 'INT64', shape: [3, 1] },
    { name: 'T', datatype: 'BYTES', shape: [3, 1], byteLength: text.byteLength },
  ]);
  const x = Float32Array.of(0, 1, 2, 3, 4, 5);
  const n = BigInt64Array.of(-(2n ** 62n), 7n, 2n ** 62n);
  block.write(0, new Uint8Array(x.buffer));
  block.write(1, new Uint8Array(n.buffer));
  block.write(2, text);
  return block.descriptors;
}

const RULES: ResponseRules = {
  batched: true,
  outputs: [
    { name: 'Y', datatype: 'FP32', dims: [2] },
    { name: 'N', datatype: 'INT64', dims: [1] },
    { name: 'S', datatype: 'BYTES', dims: [-1] },
  ],
};

function code(e: unknown): string {
  assert.ok(e instanceof InferenceServerError, String(e));
  return e.code;
}

void describe('buildRequests', () => {
  void it('cuts the batch into one request per member, as views of shared memory', () => {
    const inputs = batchBlock();
    const [first, second] = buildRequests(inputs, [1, 2], ['Y']);
    assert.ok(first !== undefined && second !== undefined);
    const x0 = first.inputs.X;
    const x1 = second.inputs.X;
    assert.ok(x0 !== undefined && x1 !== undefined);
    assert.ok(x0.data instanceof Float32Array);
    assert.deepEqual([...x0.data], [0, 1]);
    assert.deepEqual(x0.shape, [1, 2]);
    assert.deepEqual([...(x1.data as Float32Array)], [2, 3, 4, 5]);
    assert.deepEqual(x1.shape, [2, 2]);
    // A view, not a copy: the member sees the batch block's memory.
    assert.equal((x1.data as Float32Array).buffer, inputs[0]?.buffer);
    assert.ok(second.inputs.N?.data instanceof BigInt64Array);
    assert.deepEqual([...(second.inputs.N.data as BigInt64Array)], [7n, 2n ** 62n]);
    assert.deepEqual(first.inputs.T?.strings, ['a']);
    assert.deepEqual(second.inputs.T?.strings, ['héllo', '']);
    const raw = second.inputs.T?.data as readonly Uint8Array[];
    assert.deepEqual(Buffer.from(raw[0] as Uint8Array).toString(), 'héllo');
    assert.deepEqual(first.requestedOutputs, ['Y']);
    assert.equal(first.inputs.X?.strings, undefined);
  });

  void it('gives one request holding the inputs whole without member rows', () => {
    const requests = buildRequests(batchBlock(), undefined, []);
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0]?.inputs.X?.shape, [3, 2]);
    assert.deepEqual(requests[0]?.inputs.T?.strings, ['a', 'héllo', '']);
  });

  void it('refuses member rows that do not add up to the batch', () => {
    assert.throws(
      () => buildRequests(batchBlock(), [1, 1], []),
      (e) => code(e) === 'INTERNAL' && /batch of 2 rows has shape \[3,2\]/.test(String(e)),
    );
  });
});

void describe('checkResponse', () => {
  const ok = {
    outputs: {
      Y: { shape: [1, 2], data: Float32Array.of(1, 2) },
      N: { datatype: 'INT64', shape: [1, 1], data: [5] },
      S: { shape: [1, 2], data: ['x', Uint8Array.of(0, 255)] },
    },
  };

  void it('accepts typed arrays, plain arrays (ints become bigints) and mixed BYTES', () => {
    const checked = checkResponse(ok, ['Y', 'N', 'S'], 1, RULES);
    assert.deepEqual(
      checked.outputs.map((o) => o.spec),
      [
        { name: 'Y', datatype: 'FP32', shape: [1, 2], byteLength: 8 },
        { name: 'N', datatype: 'INT64', shape: [1, 1], byteLength: 8 },
        { name: 'S', datatype: 'BYTES', shape: [1, 2], byteLength: 11 },
      ],
    );
    const n = checked.outputs[1]?.bytes as Uint8Array;
    assert.deepEqual([...new BigInt64Array(n.slice().buffer)], [5n]);
  });

  void it('keeps only the wanted outputs, in the wanted order', () => {
    const checked = checkResponse(ok, ['S', 'Y'], 1, RULES);
    assert.deepEqual(
      checked.outputs.map((o) => o.spec.name),
      ['S', 'Y'],
    );
  });

  const cases: ReadonlyArray<[string, unknown, RegExp]> = [
    [
      'not an object',
      42,
      /expected a response \{ outputs: \{\.\.\.\} \} or an Error, got number 42/,
    ],
    ['an output the config lacks', { outputs: { Z: {} } }, /output "Z" is not in the model config/],
    ['a missing output', { outputs: {} }, /has no output "Y", which the request asked for/],
    [
      'another datatype',
      { outputs: { Y: { datatype: 'FP64', shape: [1, 2], data: [1, 2] } } },
      /output "Y": expected datatype FP32 \(the config's\), got FP64/,
    ],
    [
      'the wrong rows',
      { outputs: { Y: { shape: [2, 2], data: [1, 2, 3, 4] } } },
      /output "Y": expected shape \[1,2\] \(the batch dim first: this request has 1 row\(s\)\), got \[2,2\]/,
    ],
    [
      'a TypedArray of another type',
      { outputs: { Y: { shape: [1, 2], data: Float64Array.of(1, 2) } } },
      /FP32 data must be a Float32Array, got Float64Array/,
    ],
    [
      'too few elements',
      { outputs: { Y: { shape: [1, 2], data: [1] } } },
      /the shape holds 2 element\(s\), the data has 1/,
    ],
    [
      'a non-number element',
      { outputs: { Y: { shape: [1, 2], data: [1, 'two'] } } },
      /element 1: expected a number, got string two/,
    ],
  ];
  for (const [what, response, message] of cases) {
    void it(`refuses ${what} with MODEL_EXECUTE_FAILED`, () => {
      assert.throws(
        () => checkResponse(response, ['Y'], 1, RULES),
        (e) => code(e) === 'MODEL_EXECUTE_FAILED' && message.test((e as Error).message),
      );
    });
  }

  void it('refuses BYTES data that is not strings or Uint8Arrays', () => {
    assert.throws(
      () => checkResponse({ outputs: { S: { shape: [1, 1], data: [3] } } }, ['S'], 1, RULES),
      /output "S": element 0: expected a string or a Uint8Array, got number 3/,
    );
  });

  void it('refuses a non-integer for INT64', () => {
    assert.throws(
      () => checkResponse({ outputs: { N: { shape: [1, 1], data: [1.5] } } }, ['N'], 1, RULES),
      /element 0: expected a bigint or an integer, got number 1.5/,
    );
  });
});

void describe('packResponses', () => {
  void it('packs every checked response into one block, skipping failed ones', () => {
    const a = checkResponse(
      { outputs: { S: { shape: [1, 1], data: ['first'] } } },
      ['S'],
      1,
      RULES,
    );
    const b = checkResponse(
      { outputs: { S: { shape: [2, 2], data: ['a', 'b', 'c', 'd'] } } },
      ['S'],
      2,
      RULES,
    );
    const [pa, failed, pb] = packResponses([a, undefined, b]);
    assert.equal(failed, undefined);
    const da = pa?.[0];
    const db = pb?.[0];
    assert.ok(da !== undefined && db !== undefined);
    assert.equal(da.buffer, db.buffer);
    assert.ok(da.buffer instanceof SharedArrayBuffer);
    assert.deepEqual(db.shape, [2, 2]);
    const text = (d: TensorDescriptor) =>
      bytesElements(byteView(d)).map((e) => Buffer.from(e).toString());
    assert.deepEqual(text(da), ['first']);
    assert.deepEqual(text(db), ['a', 'b', 'c', 'd']);
  });
});

void describe('runJsModel', () => {
  const scrub = { modelPath: '/srv/models/m/1/model.js', displayPath: 'm/1/model.js' };
  const context = (execute: JsModel['execute']): RunContext => ({
    model: { initialize: () => undefined, execute, finalize: () => undefined },
    rules: { batched: true, outputs: [{ name: 'Y', datatype: 'FP32', dims: [2] }] },
    label: 'model "m" version 1',
    scrub,
    // These models make no BLS calls: a client whose calls go nowhere.
    context: new BlsClient(() => undefined).functions(),
  });
  const double: JsModel['execute'] = (requests) =>
    requests.map((r) => {
      const x = r.inputs.X;
      if (x === undefined) throw new Error('no X');
      if ((x.data as Float32Array)[0] === 2) return new Error(`bad row at ${scrub.modelPath}`);
      return {
        outputs: { Y: { shape: x.shape, data: (x.data as Float32Array).map((v) => v * 2) } },
      };
    });

  void it('answers each member with its own outputs or its own error', async () => {
    const resp = await runJsModel(context(double), {
      inputs: batchBlock().slice(0, 1),
      outputs: ['Y'],
      members: [1, 2, 0],
    });
    assert.ok(resp.ok && resp.members !== undefined);
    assert.deepEqual(resp.outputs, []);
    const [m0, m1, m2] = resp.members;
    assert.ok(m0?.ok === true);
    assert.deepEqual([...(typedView(m0.outputs[0] as TensorDescriptor) as Float32Array)], [0, 2]);
    assert.ok(m1?.ok === false);
    assert.equal(m1.error.code, 'MODEL_EXECUTE_FAILED');
    assert.equal(
      m1.error.message,
      'model "m" version 1: response 1 of 3 is an error: bad row at m/1/model.js',
    );
    assert.ok(m2?.ok === true);
    assert.deepEqual(m2.outputs[0]?.shape, [0, 2]);
  });

  void it('fails the whole run when execute() throws or miscounts its responses', async () => {
    const req = { inputs: batchBlock().slice(0, 1), outputs: [], members: [1, 2] };
    const threw = await runJsModel(
      context(() => {
        throw new TypeError('boom');
      }),
      req,
    );
    assert.deepEqual(threw, {
      ok: false,
      error: {
        code: 'MODEL_EXECUTE_FAILED',
        message: 'model "m" version 1: execute() threw: boom',
      },
    });
    const short = await runJsModel(
      context(() => [{}]),
      req,
    );
    assert.ok(!short.ok);
    assert.match(short.error.message, /one response per request \(2\), got 1 responses/);
  });

  void it('answers a run without members as one response', async () => {
    const resp = await runJsModel(context(double), {
      inputs: batchBlock().slice(0, 1),
      outputs: [],
    });
    assert.ok(resp.ok);
    assert.equal(resp.members, undefined);
    assert.deepEqual(resp.outputs[0]?.shape, [3, 2]);
  });
});
