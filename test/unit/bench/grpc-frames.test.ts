// The generator's gRPC message framing: prefixes built once, and messages cut back out of DATA
// chunks however they were split or joined (by the server's MessageReader, with no size limit);
// and its check of a ModelInferResponse's outputs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { framedMessage } from '../../../bench/load/grpc-frames.js';
import { MessageReader } from '../../../src/grpc/message-reader.js';
import { checkInferReply } from '../../../bench/load/grpc-request.js';
import { serializeInferRequest } from '../../../bench/model/grpc-service.js';

function readAll(reader: MessageReader, chunks: readonly Buffer[]): string[] {
  const out: string[] = [];
  for (const c of chunks) {
    assert.equal(
      reader.push(c, (m) => out.push(m.toString('latin1'))),
      undefined,
    );
  }
  return out;
}

void describe('gRPC message framing', () => {
  void it('prefixes a message with a zero flag and its big-endian length', () => {
    const framed = framedMessage(Buffer.from('abc'));
    assert.deepEqual([...framed], [0, 0, 0, 0, 3, 0x61, 0x62, 0x63]);
  });

  void it('reads messages split anywhere, joined in one chunk, or empty', () => {
    const wire = Buffer.concat([
      framedMessage(Buffer.from('first')),
      framedMessage(Buffer.alloc(0)),
      framedMessage(Buffer.from('x'.repeat(300))),
    ]);
    const whole = readAll(new MessageReader(-1), [wire]);
    assert.deepEqual(whole, ['first', '', 'x'.repeat(300)]);
    for (const cut of [1, 4, 5, 9, 10, 12, wire.length - 1]) {
      const reader = new MessageReader(-1);
      const got = readAll(reader, [wire.subarray(0, cut), wire.subarray(cut)]);
      assert.deepEqual(got, whole, `cut at ${cut}`);
      assert.equal(reader.bufferedBytes, 0);
    }
    const bytewise = new MessageReader(-1);
    assert.deepEqual(
      readAll(
        bytewise,
        [...wire].map((b) => Buffer.from([b])),
      ),
      whole,
    );
  });

  void it('holds an unfinished message and refuses a compressed one', () => {
    const reader = new MessageReader(-1);
    assert.deepEqual(readAll(reader, [framedMessage(Buffer.from('abcdef')).subarray(0, 7)]), []);
    assert.equal(reader.bufferedBytes, 7);
    const compressed = Buffer.from([1, 0, 0, 0, 1, 0x61]);
    assert.match(
      new MessageReader(-1).push(compressed, () => undefined)?.details ?? '',
      /compressed/,
    );
  });
});

void describe('ModelInferResponse check', () => {
  // A ModelInferResponse has the same field numbers for names, id and parameters as the request;
  // its outputs (5) and raw_output_contents (6) are written here by hand.
  const field = (n: number, body: Buffer): Buffer =>
    Buffer.concat([Buffer.from([(n << 3) | 2, body.length]), body]);
  const head = serializeInferRequest({ model_name: 'mlp', model_version: '1' });
  const output = field(1, Buffer.from('OUTPUT0'));

  void it('accepts raw contents for each output, in any order', () => {
    const ok = Buffer.concat([head, field(5, output), field(6, Buffer.alloc(40))]);
    assert.equal(checkInferReply(ok), null);
    const swapped = Buffer.concat([field(6, Buffer.alloc(4)), head, field(5, output)]);
    assert.equal(checkInferReply(swapped), null);
  });

  void it('refuses an answer without raw contents, with too few, or not protobuf', () => {
    assert.match(checkInferReply(head) ?? '', /got 0 for 0 outputs/);
    const short = Buffer.concat([
      head,
      field(5, output),
      field(5, output),
      field(6, Buffer.alloc(4)),
    ]);
    assert.match(checkInferReply(short) ?? '', /got 1 for 2 outputs/);
    assert.match(checkInferReply(Buffer.from([0x2a, 0x7f])) ?? '', /undecodable/);
  });

  void it('accepts outputs written into a shared-memory region without raw contents', () => {
    // parameters (4) is a map: entries with the key as field 1.
    const inRegion = Buffer.concat([
      output,
      field(
        4,
        Buffer.concat([field(1, Buffer.from('shared_memory_region')), field(2, Buffer.alloc(2))]),
      ),
    ]);
    assert.equal(checkInferReply(Buffer.concat([head, field(5, inRegion)])), null);
    const mixed = Buffer.concat([
      head,
      field(5, inRegion),
      field(5, output),
      field(6, Buffer.alloc(4)),
    ]);
    assert.equal(checkInferReply(mixed), null);
    // Another parameter is no region: the output still needs its raw contents.
    const other = Buffer.concat([
      output,
      field(
        4,
        Buffer.concat([field(1, Buffer.from('binary_data_size')), field(2, Buffer.alloc(2))]),
      ),
    ]);
    assert.match(checkInferReply(Buffer.concat([head, field(5, other)])) ?? '', /got 0 for 1/);
  });
});
