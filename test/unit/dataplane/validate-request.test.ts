// Golden cases for request validation (validation-cases-*.ts): each decoded request either becomes a
// ValidatedRequest with exactly the listed fields and written bytes, or is refused with exactly
// the listed code and message. Plus what every validated request carries through unchanged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  validateRequest,
  type ValidationContext,
} from '../../../src/dataplane/validate-request.js';
import { InferenceServerError } from '../../../src/errors.js';
import { writeJsonTensor } from '../../../src/protocol/json-tensor.js';
import type { ValidatedRequest } from '../../../src/scheduler/validated-request.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';
import { inputLabel } from '../../../src/tensor/tensor-label.js';
import { throwsCode } from '../protocol/expect-error.js';
import { MODELS } from './validation-models.js';
import { json, raw, request, type ValidationCase } from './validation-case.js';
import { DATA_CASES } from './validation-cases-data.js';
import { REQUEST_CASES } from './validation-cases-request.js';

const VALIDATION_CASES: readonly ValidationCase[] = [...REQUEST_CASES, ...DATA_CASES];

const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;

function context(maxInputBytes = DEFAULT_MAX_INPUT_BYTES): ValidationContext {
  return { signal: new AbortController().signal, arrivalNs: 12345, maxInputBytes };
}

function validate(c: ValidationCase): ValidatedRequest {
  return validateRequest(MODELS[c.model], c.request, context(c.maxInputBytes));
}

/** What `write` puts into a target of exactly byteLength bytes, as hex. */
function written(input: ValidatedRequest['inputs'][number]): string {
  const target = new Uint8Array(input.byteLength);
  input.write(target);
  return Buffer.from(target).toString('hex');
}

void describe('validateRequest golden cases', () => {
  for (const c of VALIDATION_CASES) {
    void it(`${c.model}: ${c.what}`, () => {
      if (c.refused !== undefined) {
        throwsCode(() => validate(c), c.refused.code, c.refused.message);
        return;
      }
      const v = validate(c);
      const want = c.accepted;
      assert.ok(want !== undefined, 'a case says what happens');
      const sig = MODELS[c.model];
      assert.equal(v.batchSize, want.batchSize, 'batchSize');
      assert.deepEqual(
        v.inputs.map((i) => ({
          name: i.name,
          datatype: i.datatype,
          shape: i.shape,
          requestShape: i.requestShape,
          byteLength: i.byteLength,
          bytes: written(i),
        })),
        want.inputs.map((i) => ({
          name: i.name,
          datatype: sig.inputs.get(i.name)?.datatype,
          shape: i.shape,
          requestShape: i.requestShape ?? i.shape,
          byteLength: i.bytes.length / 2,
          bytes: i.bytes,
        })),
      );
      assert.deepEqual(
        v.outputs.map((o) => [o.name, o.binary]),
        want.outputs ?? sig.outputOrder.map((name) => [name, false]),
      );
      assert.equal(v.priority, want.priority ?? 0, 'priority');
      assert.equal(v.timeoutUs, want.timeoutUs ?? 0, 'timeoutUs');
      assert.deepEqual(v.sequence, want.sequence, 'sequence');
    });
  }
});

void describe('validateRequest', () => {
  const ok = request([json('x', 'FP32', [2, 1], [1, 2])]);

  void it('carries the model, version, id, signal and arrival time through', () => {
    const ctx = context();
    const v = validateRequest(MODELS.nobatch, { ...ok, id: 'req-1' }, ctx);
    assert.equal(v.model, 'nobatch');
    assert.equal(v.version, 1);
    assert.equal(v.id, 'req-1');
    assert.equal(v.signal, ctx.signal);
    assert.equal(v.arrivalNs, 12345);
    assert.equal(Object.hasOwn(validateRequest(MODELS.nobatch, ok, ctx), 'id'), false);
  });

  void it('keeps raw input bytes as a view until write copies them', () => {
    const body = new Uint8Array(8);
    const v = validateRequest(MODELS.nobatch, request([raw('x', 'FP32', [2, 1], body)]), context());
    body.set(new Uint8Array(Float32Array.of(3, 4).buffer));
    const target = new Uint8Array(8);
    v.inputs[0]?.write(target);
    assert.deepEqual([...new Float32Array(target.buffer)], [3, 4]);
  });

  // Every producer of a DecodedRequest today (json-request.ts, frame-fields.ts) refuses repeated
  // names; validation refuses them too, with the same code and message, so a ValidatedRequest never
  // carries one input (or output) twice whatever produced it.
  void it('refuses an input named twice', () => {
    const twice = request([json('x', 'FP32', [2, 1], [1, 2]), json('x', 'FP32', [2, 1], [3, 4])]);
    throwsCode(
      () => validateRequest(MODELS.nobatch, twice, context()),
      'DUPLICATE_TENSOR',
      "input 'x' already exists in request",
    );
  });

  void it('refuses an output named twice', () => {
    const twice = request([json('x', 'FP32', [2, 1], [1, 2])], {
      outputs: [
        { name: 'y', parameters: {} },
        { name: 'y', parameters: {} },
      ],
    });
    throwsCode(
      () => validateRequest(MODELS.nobatch, twice, context()),
      'DUPLICATE_TENSOR',
      "output 'y' already exists in request",
    );
  });

  // The dynamic batcher copies every member of a batch in one mergeInputs call, so a bad element
  // found by that copy would fail every request batched with it, each with the other request's
  // message: validation refuses it before the request is queued, with the message the element
  // writer (json-tensor.ts) gives.
  void it("refuses a JSON element of the wrong kind or range with the writer's own message", () => {
    const bad: readonly (readonly [string, Datatype, unknown[]])[] = [
      ['u8', 'UINT8', [1, 300]],
      ['i8', 'INT8', [0, -129]],
      ['i32', 'INT32', [1, 0.5]],
      ['i64', 'INT64', [0, 2 ** 53]],
      ['u64', 'UINT64', [0, -1]],
      ['bool', 'BOOL', [true, 1]],
      ['f32', 'FP32', [1, '2']],
      ['f16', 'FP16', [1, null]],
      ['f64', 'FP64', [1, {}]],
    ];
    for (const [name, datatype, values] of bad) {
      let copyError: unknown;
      try {
        writeJsonTensor(values, datatype, 2, new Uint8Array(16), inputLabel(name, [2]));
      } catch (e) {
        copyError = e;
      }
      assert.ok(copyError instanceof InferenceServerError, `${datatype}: the writer refuses it`);
      throwsCode(
        () =>
          validateRequest(MODELS.types, request([json(name, datatype, [2], values)]), context()),
        copyError.code,
        copyError.message,
      );
    }
  });

  void it('converts JSON data once: write copies the checked bytes, not the JSON again', () => {
    const values = [1, 2];
    const v = validateRequest(
      MODELS.nobatch,
      request([json('x', 'FP32', [2, 1], values)]),
      context(),
    );
    values[1] = 99; // the parsed body is not read again after validation
    const target = new Uint8Array(8);
    v.inputs[0]?.write(target);
    assert.deepEqual([...new Float32Array(target.buffer)], [1, 2]);
  });

  // Over HTTP the body limit bounds raw BYTES data anyway; a WebSocket frame (--ws-max-frame-size)
  // can be larger than --http-max-input-size, so validation checks it like every other input.
  void it('refuses raw BYTES data larger than the space left under the input size limit', () => {
    const big = Buffer.alloc(4 + 200, 0x61);
    big.writeUInt32LE(200, 0);
    throwsCode(
      () =>
        validateRequest(MODELS.strings, request([raw('s', 'BYTES', [1, 1], big)]), context(100)),
      'BAD_TENSOR_DATA',
      /more than the 100 left under the input size limit/,
    );
  });
});
