// The agreement metrics over hand-made tensors with known answers: absolute, relative and cosine
// differences, the worst element's place, top-1/top-k of classifier rows, NaN, BYTES, and a shape
// that differs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgreementAccumulator, cosine, topIndices } from '../../../src/compare/agreement.js';
import type { HostTensor } from '../../../src/compare/host-tensor.js';

const fp32 = (dims: number[], values: number[]): HostTensor => ({
  datatype: 'FP32',
  dims,
  data: Float32Array.from(values),
});

void describe('validate agreement', () => {
  void it('measures differences and finds the worst element', () => {
    const acc = new AgreementAccumulator('OUT', 'FP32', 5);
    acc.add('s0', fp32([2, 3], [1, 2, 3, 3, 2, 1]), fp32([2, 3], [1, 2, 3, 3, 2.5, 1]), true);
    const r = acc.result();
    assert.equal(r.rows, 2);
    assert.equal(r.elements, 6);
    assert.equal(r.maxAbsDiff, 0.5);
    assert.equal(r.meanAbsDiff, 0.5 / 6);
    assert.equal(r.relDiff, 0.5 / Math.sqrt(28));
    assert.deepEqual(r.worst, { sample: 's0', row: 1, index: 1, serving: 2, candidate: 2.5 });
    // Row 0 agrees exactly; row 1's arg-max (0) holds, its top-2 set {0, 1} too.
    assert.equal(r.minCosine, cosine(Float64Array.of(3, 2, 1), Float64Array.of(3, 2.5, 1)));
    assert.deepEqual(r.classifier, { classes: 3, k: 2, top1: 1, topk: 1 });
  });

  void it('counts rows whose top-1 and top-k disagree', () => {
    const acc = new AgreementAccumulator('OUT', 'FP32', 1);
    acc.add(
      's',
      fp32([2, 3], [0.1, 0.2, 0.7, 0.5, 0.3, 0.2]),
      fp32([2, 3], [0.1, 0.7, 0.2, 0.5, 0.3, 0.2]),
      true,
    );
    assert.deepEqual(acc.result().classifier, { classes: 3, k: 1, top1: 0.5, topk: 0.5 });
  });

  void it('treats NaN on one side as an infinite difference, on both as agreement', () => {
    const one = new AgreementAccumulator('OUT', 'FP32', 5);
    one.add('s', fp32([1, 2], [NaN, 1]), fp32([1, 2], [0, 1]), true);
    assert.equal(one.result().maxAbsDiff, Infinity);
    const both = new AgreementAccumulator('OUT', 'FP32', 5);
    both.add('s', fp32([1, 2], [NaN, 1]), fp32([1, 2], [NaN, 1]), true);
    assert.equal(both.result().maxAbsDiff, 0);
  });

  void it('compares BYTES element by element and reports a shape that differs', () => {
    const bytes = new AgreementAccumulator('TXT', 'BYTES', 5);
    bytes.add(
      's',
      { datatype: 'BYTES', dims: [1, 2], data: ['a', 'b'] },
      { datatype: 'BYTES', dims: [1, 2], data: ['a', 'c'] },
      true,
    );
    assert.equal(bytes.result().equalShare, 0.5);
    const shape = new AgreementAccumulator('OUT', 'FP32', 5);
    shape.add('s', fp32([1, 2], [1, 2]), fp32([1, 3], [1, 2, 3]), true);
    assert.equal(shape.result().shapeMismatch, 's: serving gave FP32 [1,2], candidate FP32 [1,3]');
  });

  void it('cosine and top indices', () => {
    assert.equal(cosine(Float64Array.of(0, 0), Float64Array.of(0, 0)), 1);
    assert.equal(cosine(Float64Array.of(1, 0), Float64Array.of(0, 0)), 0);
    assert.equal(cosine(Float64Array.of(1, 0), Float64Array.of(-1, 0)), -1);
    assert.deepEqual(topIndices(Float64Array.of(0.1, 0.9, 0.5, 0.9), 3), [1, 3, 2]);
  });
});
