// How the direct ModelInfer path joins a call's DATA chunks: a large body in memory of its own,
// whose last raw_input_contents entry can move to the worker without a copy (moved-inputs.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeModelInferRequest } from '../../../src/grpc/infer-request-wire.js';
import { joinBody } from '../../../src/grpc/unary-infer.js';
import { isMovable, MOVE_MIN_BYTES } from '../../../src/memory/movable-buffers.js';

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A framed ModelInferRequest (model_name = field 1, raw_input_contents = field 7), in chunks. */
function framedCall(model: string, raw: Uint8Array, chunkBytes: number): Buffer[] {
  const name = Buffer.from(model);
  const message = Buffer.concat([
    Buffer.from([0x0a, ...varint(name.length)]),
    name,
    Buffer.from([0x3a, ...varint(raw.byteLength)]),
    raw,
  ]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  const body = Buffer.concat([prefix, message]);
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += chunkBytes) {
    chunks.push(body.subarray(at, at + chunkBytes));
  }
  return chunks;
}

void test('a large body is joined into movable memory, its last tensor aligned in it', () => {
  const raw = new Uint8Array(MOVE_MIN_BYTES + 4 * 7).map((_, i) => i % 253);
  // Model names of every length mod 8: the tensor's offset in the message varies with them.
  for (const model of ['m', 'mo', 'mod', 'mode', 'model', 'models', 'models_', 'models__']) {
    const chunks = framedCall(model, raw, 16 * 1024 + 3);
    const received = chunks.reduce((n, c) => n + c.length, 0);
    const body = joinBody(chunks, received);
    assert.ok(isMovable(body.buffer), `${model}: the body may move`);
    const [tensor] = decodeModelInferRequest(body.subarray(5)).raw_input_contents;
    assert.ok(tensor !== undefined);
    assert.equal(tensor.buffer, body.buffer, `${model}: the tensor is a view of the body`);
    assert.equal(tensor.byteOffset % 4, 0, `${model}: aligned for FP32 (its length is 4n)`);
    assert.deepEqual(new Uint8Array(tensor), raw);
  }
});

void test('small bodies and single chunks are joined as before', () => {
  const raw = new Uint8Array(1000);
  const chunks = framedCall('m', raw, 256);
  const received = chunks.reduce((n, c) => n + c.length, 0);
  const body = joinBody(chunks, received);
  assert.equal(isMovable(body.buffer), false, 'under MOVE_MIN_BYTES: a plain concat');
  assert.equal(body.length, received);
  const one = Buffer.alloc(MOVE_MIN_BYTES * 2);
  assert.equal(joinBody([one], one.length), one, 'one chunk: no copy at all');
});
