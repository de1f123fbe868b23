// Malformed BYTES data through each caller of the one walker: the ORT string boundary and the batch
// split word their own errors from what the walker reports; these pin the exact messages.
// (Request-facing messages of bytes-tensor.ts are pinned in bytes-tensor.test.ts.)

import { describe, it } from 'node:test';
import { decodeStringElements } from '../../../src/execution/onnxruntime/string-tensor.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import { splitOutputs } from '../../../src/scheduler/batch-tensors.js';
import { encodeBytesTensor } from '../../../src/tensor/bytes-tensor.js';
import { throwsCode } from '../protocol/expect-error.js';

const le32 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];

void describe('decodeStringElements on malformed data', () => {
  const two = encodeBytesTensor(['a', 'bc']);

  void it('names the count reached when the data ends or a prefix is cut short', () => {
    throwsCode(
      () => decodeStringElements(two, 3, 'S'),
      'BAD_TENSOR_DATA',
      'BYTES tensor "S": expected 3 elements, got 2 before the data ended',
    );
    throwsCode(
      () => decodeStringElements(new Uint8Array([...two, 1, 0]), 3, 'S'),
      'BAD_TENSOR_DATA',
      'BYTES tensor "S": expected 3 elements, got 2 before the data ended',
    );
  });

  void it('names the element whose length runs past the end', () => {
    throwsCode(
      () => decodeStringElements(new Uint8Array([...le32(9), 1]), 1, 'S'),
      'BAD_TENSOR_DATA',
      'BYTES tensor "S": element 0 claims 9 bytes, only 1 remain',
    );
    throwsCode(
      () => decodeStringElements(new Uint8Array([...two, 0xff, 0xff, 0xff, 0xff]), 3, 'S'),
      'BAD_TENSOR_DATA',
      'BYTES tensor "S": element 2 claims 4294967295 bytes, only 0 remain',
    );
  });

  void it('names both byte counts when bytes follow the expected elements', () => {
    throwsCode(
      () => decodeStringElements(two, 1, 'S'),
      'BAD_TENSOR_DATA',
      'BYTES tensor "S": expected 5 bytes for 1 elements, got 11',
    );
  });
});

void describe('splitOutputs on a malformed BYTES output', () => {
  function output(bytes: number[], shape: number[]) {
    const block = TensorBlock.allocate([
      { name: 'S', datatype: 'BYTES', shape, byteLength: bytes.length },
    ]);
    block.write(0, Uint8Array.from(bytes));
    return block.descriptors;
  }
  const message = (at: number) =>
    `BYTES output "S" is not 2x2 well-formed elements (at byte ${at})`;

  void it('names the byte where a member runs out of elements', () => {
    const three = [...encodeBytesTensor(['a', 'b', 'c'])];
    throwsCode(() => splitOutputs(output(three, [2, 2]), [1, 1]), 'INTERNAL', message(15));
    throwsCode(() => splitOutputs(output([...three, 0], [2, 2]), [1, 1]), 'INTERNAL', message(15));
  });

  void it('names the byte of an element whose length runs past the end', () => {
    const bad = [...encodeBytesTensor(['a', 'b']), ...le32(7), 1];
    throwsCode(() => splitOutputs(output(bad, [2, 2]), [1, 1]), 'INTERNAL', message(10));
  });

  void it('names the byte where elements follow the batch', () => {
    const five = [...encodeBytesTensor(['a', 'b', 'c', 'd', 'e'])];
    throwsCode(() => splitOutputs(output(five, [2, 2]), [1, 1]), 'INTERNAL', message(20));
  });
});
