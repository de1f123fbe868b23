// What the cache stores of a run's outputs: bytes of its own, right-sized, whatever the output
// was a view of (a Buffer's own slice() is a view, which would keep the whole block alive).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCachedResponse } from '../../../src/cache/cached-response.js';

void describe('toCachedResponse', () => {
  void it('copies each output into a buffer of exactly its size', () => {
    const block = Buffer.alloc(16 * 1024, 7);
    const data = block.subarray(128, 168);
    const stored = toCachedResponse([
      { name: 'OUTPUT0', datatype: 'FP32', shape: [1, 10], data, binary: true },
    ]);
    const copy = stored.outputs[0]?.data;
    assert.ok(copy !== undefined);
    assert.equal(copy.byteLength, 40);
    assert.equal(copy.buffer.byteLength, 40, 'not a view of the 16 KiB block');
    assert.deepEqual([...copy], [...data]);
    block.fill(0);
    assert.equal(copy[0], 7, 'the next batch reusing the block does not change the entry');
  });
});
