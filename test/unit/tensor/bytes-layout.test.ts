// The one BYTES walker: each element's bounds, where and why it stops on malformed data, and
// (properties) that walking an encoded list gives the list back and that no input makes it throw.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BYTES_PREFIX, BytesWalker, putBytesLength } from '../../../src/tensor/bytes-layout.js';
import { encodeBytesTensor } from '../../../src/tensor/bytes-tensor.js';

const le32 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];

/** Every element the walker steps over, as [start, length] pairs. */
function bounds(w: BytesWalker): [number, number][] {
  const out: [number, number][] = [];
  while (w.next()) out.push([w.start, w.length]);
  return out;
}

/** The walker's stop state, for one deepEqual. */
const stop = (w: BytesWalker) => ({
  count: w.count,
  end: w.end,
  broken: w.broken,
  detail: w.detail,
  remaining: w.remaining,
});

void describe('BytesWalker', () => {
  void it('steps over each element, giving where its bytes start and how many there are', () => {
    const w = new BytesWalker(encodeBytesTensor(['ab', '', 'xyz']));
    assert.deepEqual(bounds(w), [
      [4, 2],
      [10, 0],
      [14, 3],
    ]);
    assert.deepEqual(stop(w), { count: 3, end: 17, broken: 'none', detail: 0, remaining: 0 });
    assert.equal(w.next(), false, 'stays stopped at the end');
  });

  void it('walks nothing in empty data, and a zero-length last element', () => {
    const empty = new BytesWalker(new Uint8Array(0));
    assert.equal(empty.next(), false);
    assert.deepEqual(stop(empty), { count: 0, end: 0, broken: 'none', detail: 0, remaining: 0 });
    assert.deepEqual(bounds(new BytesWalker(new Uint8Array(le32(0)))), [[4, 0]]);
  });

  void it('skips a number of elements, stopping early at the end of the data', () => {
    const w = new BytesWalker(encodeBytesTensor(['a', 'bb', 'ccc']));
    assert.equal(w.skip(0), 0);
    assert.equal(w.skip(2), 2);
    assert.equal(w.end, 11);
    assert.equal(w.skip(5), 1);
    assert.deepEqual(stop(w), { count: 3, end: 18, broken: 'none', detail: 0, remaining: 0 });
  });

  void it('starts at a given offset; offsets are within the view it walks', () => {
    const inner = encodeBytesTensor(['q', 'rs']);
    const big = new Uint8Array(inner.length + 8);
    big.set(inner, 3);
    const view = big.subarray(3, 3 + inner.length);
    assert.deepEqual(bounds(new BytesWalker(view)), [
      [4, 1],
      [9, 2],
    ]);
    assert.deepEqual(bounds(new BytesWalker(view, 5)), [[9, 2]]);
  });

  void it('stops at a truncated length prefix, with the bytes that remain', () => {
    const w = new BytesWalker(new Uint8Array([...le32(1), 65, 2, 0]));
    assert.deepEqual(bounds(w), [[4, 1]]);
    assert.deepEqual(stop(w), { count: 1, end: 5, broken: 'prefix', detail: 2, remaining: 2 });
    assert.equal(w.next(), false, 'stays stopped at the break');
    assert.deepEqual(stop(w), { count: 1, end: 5, broken: 'prefix', detail: 2, remaining: 2 });
  });

  void it('stops at an element longer than what remains, even a 0xFFFFFFFF length', () => {
    const w = new BytesWalker(new Uint8Array([0xff, 0xff, 0xff, 0xff, 1, 2]));
    assert.equal(w.next(), false);
    assert.deepEqual(stop(w), {
      count: 0,
      end: 0,
      broken: 'overrun',
      detail: 0xffffffff,
      remaining: 6,
    });
    const short = new BytesWalker(new Uint8Array([...le32(0), ...le32(3), 1, 2]));
    assert.equal(short.skip(Infinity), 1);
    assert.deepEqual(stop(short), { count: 1, end: 4, broken: 'overrun', detail: 3, remaining: 6 });
  });

  void it('property: walking an encoded list gives the list back', () => {
    const element = fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.string({ unit: 'binary' }));
    fc.assert(
      fc.property(fc.array(element, { maxLength: 30 }), (list) => {
        const bytes = encodeBytesTensor(list);
        const w = new BytesWalker(bytes);
        const walked = bounds(w).map(([start, length]) => bytes.subarray(start, start + length));
        const expected = list.map((e) =>
          typeof e === 'string' ? new Uint8Array(Buffer.from(e, 'utf8')) : e,
        );
        assert.deepEqual(walked, expected);
        assert.deepEqual(stop(w), {
          count: list.length,
          end: bytes.length,
          broken: 'none',
          detail: 0,
          remaining: 0,
        });
      }),
    );
  });

  void it('property: any bytes are walked without throwing, up to the end or a named break', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const w = new BytesWalker(bytes);
        const walked = bounds(w);
        assert.equal(walked.length, w.count);
        // What it stepped over is exactly the encoding of the elements it returned.
        const prefix = encodeBytesTensor(walked.map(([s, n]) => bytes.subarray(s, s + n)));
        assert.deepEqual(prefix, bytes.subarray(0, w.end));
        if (w.broken === 'none') assert.equal(w.remaining, 0);
        else if (w.broken === 'prefix') assert.ok(w.remaining > 0 && w.remaining < BYTES_PREFIX);
        else assert.ok(w.detail > w.remaining - BYTES_PREFIX);
      }),
    );
  });
});

void describe('putBytesLength', () => {
  void it('writes a 4-byte little-endian prefix at an offset', () => {
    const out = new Uint8Array(6);
    putBytesLength(out, 1, 0x01020304);
    assert.deepEqual([...out], [0, 4, 3, 2, 1, 0]);
    putBytesLength(out, 2, 0xffffffff);
    assert.deepEqual([...out], [0, 4, 0xff, 0xff, 0xff, 0xff]);
  });
});
