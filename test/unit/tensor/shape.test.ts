// Shapes: element counts, config.pbtxt `reshape` both ways (request -> model, model output ->
// configured dims), and how a shape is printed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { elementCount, reshape, shapeText } from '../../../src/tensor/shape.js';

void describe('elementCount', () => {
  void it('multiplies the dims: 1 for a scalar, 0 with any zero dim', () => {
    assert.equal(elementCount([]), 1);
    assert.equal(elementCount([3]), 3);
    assert.equal(elementCount([2, 3, 4]), 24);
    assert.equal(elementCount([5, 0, 7]), 0);
  });
});

void describe('reshape', () => {
  void it('keeps the batch dim of a batching model and replaces the rest', () => {
    assert.deepEqual(reshape([8, 2, 3], [6], true), [8, 6]);
    assert.deepEqual(reshape([8, 6], [3, 2], true), [8, 3, 2]);
  });

  void it('replaces the whole shape of a model without batching', () => {
    assert.deepEqual(reshape([2, 3], [3, 2], false), [3, 2]);
    assert.deepEqual(reshape([6], [1, 6], false), [1, 6]);
  });

  void it('gives a -1 the elements the known dims leave', () => {
    assert.deepEqual(reshape([4, 2, 6], [3, -1], true), [4, 3, 4]);
    assert.deepEqual(reshape([12], [-1, 2], false), [6, 2]);
  });

  void it('gives a -1 zero elements when a known dim is zero', () => {
    assert.deepEqual(reshape([2, 5], [0, -1], true), [2, 0, 0]);
  });

  void it('takes an empty reshape to one value per batch item (autocompleted [1] inputs)', () => {
    assert.deepEqual(reshape([4, 1], [], true), [4]);
    assert.deepEqual(reshape([1], [], false), []);
  });

  void it('property: round trip through the reshape and back keeps the shape', () => {
    const dim = fc.integer({ min: 1, max: 6 });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.array(dim, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (batch, dims, batched) => {
          // The model's dims: the same elements as one flat dim, with -1 standing for it.
          const request = batched ? [batch, ...dims] : dims;
          const model = reshape(request, [-1], batched);
          assert.equal(elementCount(model), elementCount(request));
          assert.deepEqual(reshape(model, dims, batched), request);
        },
      ),
    );
  });
});

void describe('shapeText', () => {
  void it('prints dims comma-separated in brackets, without spaces', () => {
    assert.equal(shapeText([1, 16]), '[1,16]');
    assert.equal(shapeText([]), '[]');
    assert.equal(shapeText([-1, 3]), '[-1,3]');
  });
});
