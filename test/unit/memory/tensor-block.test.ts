// Tensor blocks: layout, descriptors, views, bounds-checked writes, plus the size cap.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import { byteView, typedView, typedViewOf } from '../../../src/memory/views.js';

const code = (c: string) => (e: unknown) => e instanceof InferenceServerError && e.code === c;

void describe('TensorBlock.allocate', () => {
  void it('lays slots out 64-byte aligned in one SharedArrayBuffer, in spec order', () => {
    const block = TensorBlock.allocate([
      { name: 'a', datatype: 'UINT8', shape: [3] },
      { name: 'b', datatype: 'FP64', shape: [2, 2] },
      { name: 'c', datatype: 'BYTES', shape: [1], byteLength: 9 },
    ]);
    assert.ok(block.buffer instanceof SharedArrayBuffer);
    assert.equal(block.slotCount, 3);
    assert.deepEqual(
      block.descriptors.map((d) => [d.name, d.byteOffset, d.byteLength]),
      [
        ['a', 0, 3],
        ['b', 64, 32],
        ['c', 128, 9],
      ],
    );
    assert.equal(block.buffer.byteLength, 137);
    for (const d of block.descriptors) assert.equal(d.buffer, block.buffer);
  });

  void it('gives every fixed-size slot a legal typed view, whatever the previous slot length', () => {
    const block = TensorBlock.allocate([
      { name: 'odd', datatype: 'INT8', shape: [7] },
      { name: 'i64', datatype: 'INT64', shape: [3] },
      { name: 'f16', datatype: 'FP16', shape: [5] },
      { name: 'f32', datatype: 'FP32', shape: [2] },
    ]);
    const i64 = typedView(block.descriptor(1));
    assert.ok(i64 instanceof BigInt64Array);
    assert.equal(i64.length, 3);
    assert.ok(typedView(block.descriptor(2)) instanceof Uint16Array);
    assert.ok(typedView(block.descriptor(3)) instanceof Float32Array);
  });

  void it('requires an explicit byte length for BYTES and a matching one for fixed-size types', () => {
    assert.throws(
      () => TensorBlock.allocate([{ name: 's', datatype: 'BYTES', shape: [2] }]),
      code('INTERNAL'),
    );
    assert.throws(
      () => TensorBlock.allocate([{ name: 'x', datatype: 'FP32', shape: [4], byteLength: 15 }]),
      (e: unknown) =>
        code('BYTE_SIZE_MISMATCH')(e) && /needs 16 bytes, got 15/.test((e as Error).message),
    );
  });

  void it('refuses a block over the cap, naming both sizes', () => {
    assert.throws(
      () =>
        TensorBlock.allocate([{ name: 'x', datatype: 'FP32', shape: [300] }], { maxBytes: 1000 }),
      (e: unknown) =>
        code('BAD_REQUEST')(e) && /1200 bytes.*limit is 1000/.test((e as Error).message),
    );
    // Exactly at the cap is fine.
    assert.equal(
      TensorBlock.allocate([{ name: 'x', datatype: 'FP32', shape: [250] }], { maxBytes: 1000 })
        .buffer.byteLength,
      1000,
    );
  });

  void it('rejects a shape whose byte size is not a safe integer before allocating', () => {
    assert.throws(
      () => TensorBlock.allocate([{ name: 'x', datatype: 'FP64', shape: [2 ** 30, 2 ** 30] }]),
      code('BAD_SHAPE'),
    );
  });
});

void describe('TensorBlock writes', () => {
  void it('copies bytes into a slot at an offset and nowhere else', () => {
    const block = TensorBlock.allocate([
      { name: 'a', datatype: 'UINT8', shape: [4] },
      { name: 'b', datatype: 'UINT8', shape: [4] },
    ]);
    block.write(1, Uint8Array.from([7, 8]), 2);
    assert.deepEqual([...block.bytes(1)], [0, 0, 7, 8]);
    assert.deepEqual([...block.bytes(0)], [0, 0, 0, 0]);
  });

  void it('refuses writes that would overrun the slot', () => {
    const block = TensorBlock.allocate([
      { name: 'a', datatype: 'UINT8', shape: [4] },
      { name: 'b', datatype: 'UINT8', shape: [4] },
    ]);
    assert.throws(() => block.write(0, new Uint8Array(3), 2), code('INTERNAL'));
    assert.throws(() => block.write(0, new Uint8Array(1), -1), code('INTERNAL'));
    assert.throws(() => block.write(2, new Uint8Array(1)), code('INTERNAL'));
    assert.deepEqual([...block.bytes(1)], [0, 0, 0, 0]);
  });
});

void describe('views', () => {
  void it('byteView and typedViewOf refuse regions outside the buffer', () => {
    const buffer = new SharedArrayBuffer(16);
    const d = {
      name: 'x',
      datatype: 'FP32' as const,
      shape: [4],
      buffer,
      byteOffset: 8,
      byteLength: 16,
    };
    assert.throws(() => byteView(d), code('INTERNAL'));
    assert.throws(() => typedViewOf(buffer, 2, 4, 'FP32'), code('INTERNAL'), 'misaligned');
    assert.throws(() => typedViewOf(buffer, 0, 6, 'FP32'), code('BYTE_SIZE_MISMATCH'));
    assert.throws(() => typedViewOf(buffer, 0, 4, 'BYTES'), code('INTERNAL'));
  });

  void it('typedView checks the byte length against the shape', () => {
    const block = TensorBlock.allocate([{ name: 'x', datatype: 'FP32', shape: [4] }]);
    const d = { ...block.descriptor(0), shape: [5] };
    assert.throws(() => typedView(d), code('BYTE_SIZE_MISMATCH'));
  });

  void it('views see what another view wrote (no copies)', () => {
    const block = TensorBlock.allocate([{ name: 'x', datatype: 'UINT16', shape: [2] }]);
    (typedView(block.descriptor(0)) as Uint16Array).set([0x0102, 0x0304]);
    assert.deepEqual([...block.bytes(0)], [2, 1, 4, 3]);
  });
});
