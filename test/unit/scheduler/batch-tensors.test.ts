// Merging requests into one batch block and splitting outputs back: one copy per input, the right
// rows in the right place, and outputs handed back as views of the batch's memory.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, InferenceServerError } from '../../../src/errors.js';
import { encodeBytesTensor, bytesElements } from '../../../src/tensor/bytes-tensor.js';
import {
  batchKey,
  mergeInputs,
  mergeMembers,
  splitOutputs,
} from '../../../src/scheduler/batch-tensors.js';
import type { ValidatedInput } from '../../../src/scheduler/validated-request.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import { typedView } from '../../../src/memory/views.js';
import { floats, fp32, input } from './fixtures.js';

const code = (c: string) => (e: unknown) => e instanceof InferenceServerError && e.code === c;
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

void describe('batchKey', () => {
  void it('matches requests with the same names, datatypes and non-batch dims, in any order', () => {
    const a = [fp32('X', 1, [1, 2]), fp32('Y', 2, [1, 2, 3, 4])];
    const b = [fp32('Y', 3, [0, 0, 0, 0, 0, 0]), fp32('X', 2, [5, 6, 7, 8])];
    assert.equal(batchKey(a), batchKey(b));
  });

  void it('tells apart other dims, other datatypes and other names', () => {
    const base = batchKey([fp32('X', 1, [1, 2])]);
    assert.notEqual(base, batchKey([fp32('X', 1, [1, 2, 3])]));
    assert.notEqual(base, batchKey([fp32('Z', 1, [1, 2])]));
    const i32 = input({ name: 'X', datatype: 'INT32', shape: [1, 2], bytes: new Uint8Array(8) });
    assert.notEqual(base, batchKey([i32]));
  });
});

void describe('mergeInputs', () => {
  void it('copies each request once into its rows of one shared block', () => {
    const a = [fp32('X', 1, [1, 2]), fp32('Y', 1, [10, 20, 30])];
    const b = [fp32('Y', 2, [40, 50, 60, 70, 80, 90]), fp32('X', 2, [3, 4, 5, 6])];
    const block = mergeInputs(
      [
        { rows: 1, inputs: a },
        { rows: 2, inputs: b },
      ],
      { batched: true },
    );
    assert.ok(block.buffer instanceof SharedArrayBuffer);
    assert.deepEqual(
      block.descriptors.map((d) => [d.name, d.shape]),
      [
        ['X', [3, 2]],
        ['Y', [3, 3]],
      ],
    );
    assert.deepEqual([...(typedView(block.descriptor(0)) as Float32Array)], [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(
      [...(typedView(block.descriptor(1)) as Float32Array)],
      [10, 20, 30, 40, 50, 60, 70, 80, 90],
    );
    for (const i of [...a, ...b]) assert.equal(i.writes, 1);
  });

  void it('concatenates BYTES inputs in their length-prefixed layout', () => {
    const one = encodeBytesTensor(['ab', '']);
    const two = encodeBytesTensor(['cde']);
    const block = mergeInputs(
      [
        { rows: 2, inputs: [input({ name: 'S', datatype: 'BYTES', shape: [2], bytes: one })] },
        { rows: 1, inputs: [input({ name: 'S', datatype: 'BYTES', shape: [1], bytes: two })] },
      ],
      { batched: true },
    );
    const d = block.descriptor(0);
    assert.deepEqual(d.shape, [3]);
    assert.equal(d.byteLength, one.byteLength + two.byteLength);
    assert.deepEqual(bytesElements(block.bytes(0)).map(text), ['ab', '', 'cde']);
  });

  void it('passes a lone request of a model without a batch dim through unchanged', () => {
    const x = fp32('X', 2, [1, 2, 3, 4]);
    const block = mergeInputs([{ rows: 1, inputs: [x] }], { batched: false });
    assert.deepEqual(block.descriptor(0).shape, [2, 2]);
    assert.deepEqual([...(typedView(block.descriptor(0)) as Float32Array)], [1, 2, 3, 4]);
  });

  void it('refuses members that do not line up', () => {
    assert.throws(
      () =>
        mergeInputs(
          [
            { rows: 1, inputs: [fp32('X', 1, [1, 2])] },
            { rows: 1, inputs: [fp32('Z', 1, [1, 2])] },
          ],
          { batched: true },
        ),
      code('INTERNAL'),
    );
    assert.throws(
      () => mergeInputs([{ rows: 3, inputs: [fp32('X', 1, [1, 2])] }], { batched: true }),
      code('INTERNAL'),
    );
    assert.throws(() => mergeInputs([], { batched: true }), code('INTERNAL'));
  });
});

/** An FP32 input of `rows` x 2 whose copy fails with BAD_TENSOR_DATA `message`. */
function failingInput(rows: number, message: string): ValidatedInput {
  return {
    name: 'X',
    datatype: 'FP32',
    shape: [rows, 2],
    requestShape: [rows, 2],
    byteLength: rows * 8,
    write: () => {
      throw fail('BAD_TENSOR_DATA', message);
    },
  };
}

void describe('mergeMembers', () => {
  void it('leaves out only a member whose data fails to copy, with its own error', () => {
    const a = fp32('X', 1, [1, 2]);
    const c = fp32('X', 2, [5, 6, 7, 8]);
    const merged = mergeMembers(
      [
        { rows: 1, inputs: [a] },
        { rows: 1, inputs: [failingInput(1, 'bad element in b')] },
        { rows: 2, inputs: [c] },
      ],
      { batched: true },
    );
    assert.ok(merged.block !== undefined);
    assert.deepEqual(merged.block.descriptor(0).shape, [3, 2]);
    assert.deepEqual(
      [...(typedView(merged.block.descriptor(0)) as Float32Array)],
      [1, 2, 5, 6, 7, 8],
    );
    assert.deepEqual(
      merged.refused.map((e) => e && [e.code, e.message]),
      [undefined, ['BAD_TENSOR_DATA', 'bad element in b'], undefined],
    );
  });

  void it('refuses every member when none copies, and answers a plain Error as INTERNAL', () => {
    const broken: ValidatedInput = {
      ...failingInput(1, ''),
      write: () => {
        throw new RangeError('offset is out of bounds');
      },
    };
    const merged = mergeMembers(
      [
        { rows: 1, inputs: [failingInput(1, 'first')] },
        { rows: 1, inputs: [broken] },
      ],
      { batched: true },
    );
    assert.equal(merged.block, undefined);
    assert.deepEqual(
      merged.refused.map((e) => e?.code),
      ['BAD_TENSOR_DATA', 'INTERNAL'],
    );
  });

  void it("still throws for members that do not line up: that is no one member's fault", () => {
    assert.throws(
      () =>
        mergeMembers(
          [
            { rows: 1, inputs: [fp32('X', 1, [1, 2])] },
            { rows: 1, inputs: [fp32('Z', 1, [1, 2])] },
          ],
          { batched: true },
        ),
      code('INTERNAL'),
    );
  });
});

void describe('splitOutputs', () => {
  void it('hands each request its rows as views of the batch output (no copy)', () => {
    const block = TensorBlock.allocate([
      { name: 'A', datatype: 'FP32', shape: [4, 2] },
      { name: 'B', datatype: 'INT8', shape: [4] },
    ]);
    (typedView(block.descriptor(0)) as Float32Array).set([1, 2, 3, 4, 5, 6, 7, 8]);
    (typedView(block.descriptor(1)) as Int8Array).set([-1, -2, -3, -4]);
    const parts = splitOutputs(block.descriptors, [1, 3]);
    assert.equal(parts.length, 2);
    const [first, second] = parts as [(typeof parts)[0], (typeof parts)[0]];
    assert.deepEqual(
      first.map((o) => [o.name, o.shape]),
      [
        ['A', [1, 2]],
        ['B', [1]],
      ],
    );
    assert.deepEqual(floats(first[0]!.data), [1, 2]);
    assert.deepEqual(floats(second[0]!.data), [3, 4, 5, 6, 7, 8]);
    assert.deepEqual(
      [...new Int8Array(second[1]!.data.buffer, second[1]!.data.byteOffset, 3)],
      [-2, -3, -4],
    );
    for (const o of [...first, ...second]) assert.equal(o.data.buffer, block.buffer);
    // A write through the batch output shows through the view: the same memory.
    (typedView(block.descriptor(0)) as Float32Array)[2] = 99;
    assert.equal(floats(second[0]!.data)[0], 99);
  });

  void it("walks BYTES length prefixes to find each request's elements", () => {
    const bytes = encodeBytesTensor(['a', 'bb', '', 'dddd', 'e', 'ff']);
    const block = TensorBlock.allocate([
      { name: 'S', datatype: 'BYTES', shape: [3, 2], byteLength: bytes.byteLength },
    ]);
    block.write(0, bytes);
    const parts = splitOutputs(block.descriptors, [2, 1]);
    assert.deepEqual(
      parts.map((p) => p[0]!.shape),
      [
        [2, 2],
        [1, 2],
      ],
    );
    assert.deepEqual(bytesElements(parts[0]![0]!.data).map(text), ['a', 'bb', '', 'dddd']);
    assert.deepEqual(bytesElements(parts[1]![0]!.data).map(text), ['e', 'ff']);
  });

  void it('gives a single request the outputs whole', () => {
    const block = TensorBlock.allocate([{ name: 'A', datatype: 'FP32', shape: [2, 1] }]);
    const [only] = splitOutputs(block.descriptors, [2]);
    assert.deepEqual(only![0]!.shape, [2, 1]);
    assert.equal(only![0]!.data.byteLength, 8);
  });

  void it('refuses an output without the batch dim first, or broken BYTES', () => {
    const block = TensorBlock.allocate([{ name: 'A', datatype: 'FP32', shape: [3, 2] }]);
    assert.throws(() => splitOutputs(block.descriptors, [1, 1]), code('INTERNAL'));
    const bad = TensorBlock.allocate([{ name: 'S', datatype: 'BYTES', shape: [2], byteLength: 6 }]);
    bad.write(0, Uint8Array.from([9, 0, 0, 0, 1, 2]));
    assert.throws(() => splitOutputs(bad.descriptors, [1, 1]), code('INTERNAL'));
  });
});
