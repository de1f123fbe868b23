// Client tensors: wire bytes for every datatype, typed views of received bytes (copied only when
// unaligned), and the JSON forms the HTTP transport uses.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  jsonValues,
  tensor,
  tensorBytes,
  tensorFromBytes,
  tensorFromJson,
} from '../../../src/client/client-tensor.js';

void describe('client tensors', () => {
  void it('round-trips typed arrays through their bytes, viewing aligned bytes in place', () => {
    const t = tensor('X', 'FP64', [2], Float64Array.of(1.25, -3));
    const bytes = tensorBytes(t);
    assert.equal(bytes.buffer, t.data.buffer); // a view, not a copy
    const back = tensorFromBytes('X', 'FP64', [2], bytes);
    assert.ok(back.data instanceof Float64Array);
    assert.equal((back.data as Float64Array).buffer, bytes.buffer);
    assert.deepEqual([...(back.data as Float64Array)], [1.25, -3]);
  });

  void it('copies unaligned bytes, including those of a Buffer (whose slice is a view)', () => {
    const backing = Buffer.alloc(9);
    backing.set(new Uint8Array(BigInt64Array.of(-5n).buffer), 1);
    const unaligned = backing.subarray(1);
    const t = tensorFromBytes('X', 'INT64', [1], unaligned);
    assert.deepEqual([...(t.data as BigInt64Array)], [-5n]);
  });

  void it('lays out BYTES elements with length prefixes and reads them back', () => {
    const bytes = tensorBytes(tensor('S', 'BYTES', [2], ['ab', Uint8Array.of(0)]));
    assert.deepEqual([...bytes], [2, 0, 0, 0, 97, 98, 1, 0, 0, 0, 0]);
    const back = tensorFromBytes('S', 'BYTES', [2], bytes).data as Uint8Array[];
    assert.deepEqual(
      back.map((e) => [...e]),
      [[97, 98], [0]],
    );
  });

  void it('converts to and from JSON values per datatype', () => {
    assert.deepEqual(jsonValues(tensor('B', 'BOOL', [2], Uint8Array.of(1, 0))), [true, false]);
    assert.deepEqual(jsonValues(tensor('H', 'FP16', [1], Uint16Array.of(0x3c00))), [1]);
    assert.deepEqual(jsonValues(tensor('L', 'INT64', [1], BigInt64Array.of(-7n))), [-7]);
    assert.deepEqual([...(tensorFromJson('H', 'FP16', [1], [1]).data as Uint16Array)], [0x3c00]);
    assert.deepEqual(
      [...(tensorFromJson('B', 'BOOL', [2], [true, false]).data as Uint8Array)],
      [1, 0],
    );
    assert.deepEqual([...(tensorFromJson('L', 'UINT64', [1], [9]).data as BigUint64Array)], [9n]);
  });
});
