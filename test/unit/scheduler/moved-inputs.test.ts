// Which lone requests move their own buffers to the worker, and the descriptors they move with.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allocateRequestBytes,
  isMovable,
  MOVE_MIN_BYTES,
} from '../../../src/memory/movable-buffers.js';
import { movedInputs } from '../../../src/scheduler/moved-inputs.js';
import type { ValidatedInput } from '../../../src/scheduler/validated-request.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';

function input(name: string, datatype: Datatype, bytes: Uint8Array): ValidatedInput {
  return {
    name,
    datatype,
    shape: [1, bytes.byteLength],
    requestShape: [1, bytes.byteLength],
    byteLength: bytes.byteLength,
    write: (target) => target.set(bytes),
    bytes,
  };
}

void test('a large body is movable and its tensor bytes start on a 64-byte boundary', () => {
  const body = allocateRequestBytes(MOVE_MIN_BYTES + 100, 37);
  assert.ok(isMovable(body.buffer));
  assert.equal((body.byteOffset + 37) % 64, 0);
  assert.equal(body.byteLength, MOVE_MIN_BYTES + 100);
  // Small allocations never enter the registry: they are always copied.
  assert.equal(isMovable(allocateRequestBytes(1000).buffer), false);
  assert.equal(isMovable(new ArrayBuffer(MOVE_MIN_BYTES)), false);
});

void test('two inputs in one large body move as views of it, the buffer listed once', () => {
  const header = 45;
  const body = allocateRequestBytes(header + 2 * MOVE_MIN_BYTES, header);
  const a = body.subarray(header, header + MOVE_MIN_BYTES);
  const b = body.subarray(header + MOVE_MIN_BYTES);
  const moved = movedInputs([input('A', 'FP32', a), input('B', 'FP64', b)]);
  assert.ok(moved !== undefined);
  assert.deepEqual(moved.transfer, [body.buffer]);
  assert.deepEqual(
    moved.descriptors.map((d) => [d.name, d.buffer === body.buffer, d.byteOffset, d.byteLength]),
    [
      ['A', true, a.byteOffset, MOVE_MIN_BYTES],
      ['B', true, b.byteOffset, MOVE_MIN_BYTES],
    ],
  );
  assert.equal(a.byteOffset % 64, 0);
});

void test('small, foreign or misaligned bytes are copied instead', () => {
  const small = allocateRequestBytes(1024);
  assert.equal(movedInputs([input('A', 'FP32', small)]), undefined, 'under MOVE_MIN_BYTES');
  const foreign = new Uint8Array(MOVE_MIN_BYTES);
  assert.equal(movedInputs([input('A', 'FP32', foreign)]), undefined, 'not the request’s own');
  const body = allocateRequestBytes(MOVE_MIN_BYTES + 8);
  const odd = body.subarray(2, 2 + MOVE_MIN_BYTES);
  assert.equal(
    movedInputs([input('A', 'FP32', odd)]),
    undefined,
    'a Float32Array cannot start at 2',
  );
  assert.ok(movedInputs([input('A', 'UINT8', odd)]) !== undefined, 'bytes can start anywhere');
  // One input that cannot move keeps them all in the copy path.
  const large = allocateRequestBytes(MOVE_MIN_BYTES);
  assert.equal(
    movedInputs([input('A', 'FP32', large), input('B', 'FP32', new Uint8Array(64))]),
    undefined,
  );
  const withoutBytes: ValidatedInput = { ...input('A', 'FP32', large), bytes: undefined };
  assert.equal(movedInputs([withoutBytes]), undefined, 'no single view to move');
});
