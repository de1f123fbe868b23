// Which lone requests move their own buffers to the worker, and the descriptors they move with.

import assert from 'node:assert/strict';
import { openSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  allocateRequestBytes,
  isMovable,
  MOVE_MIN_BYTES,
} from '../../../src/memory/movable-buffers.js';
import { movedInputs } from '../../../src/scheduler/moved-inputs.js';
import { ShmRegion } from '../../../src/shared-memory/shm-region.js';
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
});

/** A /dev/shm file holding `bytes`, opened as the server opens a registered region. */
function regionOf(bytes: Uint8Array): { region: ShmRegion; path: string } {
  const path = `/dev/shm/infernode-moved-inputs-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r+');
  return {
    region: new ShmRegion('r', path.slice('/dev/shm'.length), 0, bytes.byteLength, fd),
    path,
  };
}

/** An input read from `region` at run time, as validate-request.ts makes it (no `bytes`). */
function regionInput(name: string, region: ShmRegion, byteLength: number): ValidatedInput {
  return {
    name,
    datatype: 'FP32',
    shape: [1, byteLength / 4],
    requestShape: [1, byteLength / 4],
    byteLength,
    write: (target) => region.read(0, target),
  };
}

void test('a large shared-memory input is read into a buffer of its own, which moves', () => {
  const data = new Uint8Array(MOVE_MIN_BYTES).map((_, i) => i % 251);
  const { region, path } = regionOf(data);
  try {
    const moved = movedInputs([regionInput('A', region, data.byteLength)]);
    assert.ok(moved !== undefined, 'moved, not gathered into a shared block');
    const [d] = moved.descriptors;
    assert.ok(d !== undefined);
    assert.ok(d.buffer instanceof ArrayBuffer && !(d.buffer instanceof SharedArrayBuffer));
    assert.deepEqual(moved.transfer, [d.buffer]);
    assert.equal(d.byteOffset, 0);
    assert.deepEqual(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), data);
    // Beside a movable input too: each buffer once.
    const body = allocateRequestBytes(MOVE_MIN_BYTES);
    const both = movedInputs([input('B', 'FP32', body), regionInput('A', region, 1024)]);
    assert.ok(both !== undefined);
    assert.equal(both.transfer.length, 2);
    // A region read never makes a foreign input movable: those stay in the copy path, unread.
    let reads = 0;
    const counted: ValidatedInput = {
      ...regionInput('A', region, MOVE_MIN_BYTES),
      write: () => void reads++,
    };
    assert.equal(movedInputs([counted, input('B', 'FP32', new Uint8Array(64))]), undefined);
    assert.equal(reads, 0, 'nothing read for a run that gathers');
  } finally {
    region.release();
    rmSync(path, { force: true });
  }
});

void test('a region shrunk before its run fails the read (SHM_TRUNCATED), not the process', () => {
  const { region, path } = regionOf(new Uint8Array(MOVE_MIN_BYTES));
  try {
    truncateSync(path, 100);
    assert.throws(
      () => movedInputs([regionInput('A', region, MOVE_MIN_BYTES)]),
      (e: unknown) => e instanceof InferenceServerError && e.code === 'SHM_TRUNCATED',
    );
  } finally {
    region.release();
    rmSync(path, { force: true });
  }
});
