// MessageReader: gRPC's length-prefixed messages out of DATA chunks cut anywhere. Property: for
// any messages and any cut points, the reader hands over exactly the messages, in order; the
// prefix's size limit and compressed flag end the stream however the prefix is cut.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { status } from '@grpc/grpc-js';
import { MessageReader } from '../../../src/grpc/message-reader.js';

function framed(message: Uint8Array, flag = 0): Buffer {
  const b = Buffer.alloc(5 + message.length);
  b[0] = flag;
  b.writeUInt32BE(message.length, 1);
  b.set(message, 5);
  return b;
}

/** `bytes` cut at `cuts` (positions, any order, duplicates allowed). */
function cutAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) chunks.push(bytes.subarray(from, c));
    from = c;
  }
  return chunks;
}

void describe('MessageReader', () => {
  void it('hands over every message in order, however the chunks cut them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (messages, cuts) => {
          const reader = new MessageReader(-1);
          const got: Buffer[] = [];
          const wire = Buffer.concat(messages.map((m) => framed(m)));
          for (const chunk of cutAt(wire, cuts)) {
            assert.equal(
              reader.push(chunk, (m) => got.push(Buffer.from(m))),
              undefined,
            );
          }
          assert.deepEqual(
            got,
            messages.map((m) => Buffer.from(m)),
          );
          assert.equal(reader.midMessage, false);
        },
      ),
    );
  });

  void it('knows when the bytes so far stop inside a message', () => {
    const reader = new MessageReader(-1);
    const wire = framed(Buffer.alloc(10));
    assert.equal(
      reader.push(wire.subarray(0, 3), () => assert.fail('no message yet')),
      undefined,
    );
    assert.equal(reader.midMessage, true);
    let n = 0;
    reader.push(wire.subarray(3), () => (n += 1));
    assert.deepEqual([n, reader.midMessage], [1, false]);
  });

  void it('refuses a message over the limit from its prefix alone, even a prefix cut in two', () => {
    for (const cut of [1, 2, 4, 5]) {
      const reader = new MessageReader(100);
      const wire = framed(Buffer.alloc(101)).subarray(0, 20);
      const first = reader.push(wire.subarray(0, cut), () => assert.fail('no message'));
      const problem = first ?? reader.push(wire.subarray(cut), () => assert.fail('no message'));
      assert.deepEqual(problem, {
        code: status.RESOURCE_EXHAUSTED,
        details: 'Received message larger than max (101 vs 100)',
      });
    }
    const exact = new MessageReader(100);
    let got = 0;
    assert.equal(
      exact.push(framed(Buffer.alloc(100)), () => (got += 1)),
      undefined,
    );
    assert.equal(got, 1);
  });

  void it('refuses a message flagged compressed, after handing over the ones before it', () => {
    const reader = new MessageReader(-1);
    const got: Buffer[] = [];
    const problem = reader.push(
      Buffer.concat([framed(Buffer.from('a')), framed(Buffer.from('b'), 1)]),
      (m) => got.push(m),
    );
    assert.equal(problem?.code, status.INTERNAL);
    assert.match(problem?.details ?? '', /compressed/);
    assert.deepEqual(got, [Buffer.from('a')]);
  });
});
