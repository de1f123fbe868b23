// The WebSocket generator's byte handling without a server: client frame headers for each length
// form, the incremental reader of server frames however the bytes are chunked, request templates
// whose id is patched in place, and the reading of response ids and outcomes.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Packr, Unpackr } from 'msgpackr';
import {
  clientFrameHeader,
  FrameReader,
  OPCODE,
  type FrameSink,
} from '../../../bench/load/ws-framing.js';
import { readReply, WsFrameTemplate, wsRequestPayload } from '../../../bench/load/ws-request.js';
import type { InputSet } from '../../../bench/model/input-data.js';

const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/** A server frame (unmasked) with the smallest length form, as RFC 6455 requires. */
function serverFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const n = payload.length;
  const head =
    n < 126
      ? Buffer.from([(fin ? 0x80 : 0) | opcode, n])
      : n < 0x10000
        ? Buffer.from([(fin ? 0x80 : 0) | opcode, 126, n >> 8, n & 0xff])
        : Buffer.concat([
            Buffer.from([(fin ? 0x80 : 0) | opcode, 127, 0, 0, 0, 0]),
            Buffer.from([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]),
          ]);
  return Buffer.concat([head, payload]);
}

interface Collected {
  messages: Buffer[];
  controls: [number, string][];
  errors: string[];
}

function collector(): { sink: FrameSink; got: Collected } {
  const got: Collected = { messages: [], controls: [], errors: [] };
  return {
    got,
    sink: {
      message: (p) => got.messages.push(Buffer.from(p)),
      control: (op, p) => got.controls.push([op, p.toString('hex')]),
      protocolError: (r) => got.errors.push(r),
    },
  };
}

const SET: InputSet = [
  { name: 'INPUT0', datatype: 'INT32', shape: [1, 2], elements: [7, 8] },
  { name: 'INPUT1', datatype: 'BYTES', shape: [1, 1], elements: ['héllo'] },
];

void describe('WebSocket framing', () => {
  void it('writes masked client headers with a zero key in all three length forms', () => {
    for (const [length, size, form] of [
      [5, 6, 5],
      [300, 8, 126],
      [70_000, 14, 127],
    ] as const) {
      const h = clientFrameHeader(OPCODE.binary, length);
      assert.equal(h.length, size);
      assert.equal(h[0], 0x82, 'FIN + binary');
      assert.equal((h[1] as number) & 0x80, 0x80, 'masked');
      assert.equal((h[1] as number) & 0x7f, form);
      assert.deepEqual([...h.subarray(size - 4)], [0, 0, 0, 0]);
      if (form === 126) assert.equal(h.readUInt16BE(2), length);
      if (form === 127) assert.equal(h.readUInt32BE(6), length);
    }
  });

  void it('reads frames however the stream is chunked, including fragments and control frames', () => {
    const big = Buffer.alloc(70_000, 7);
    const stream = Buffer.concat([
      serverFrame(OPCODE.binary, Buffer.from('one')),
      serverFrame(OPCODE.ping, Buffer.from('hi')),
      serverFrame(OPCODE.binary, Buffer.alloc(300, 1)),
      serverFrame(OPCODE.binary, Buffer.from('frag-'), false),
      serverFrame(OPCODE.continuation, Buffer.from('ment')),
      serverFrame(OPCODE.binary, big),
      serverFrame(OPCODE.close, Buffer.from([0x03, 0xe8, 0x62, 0x79, 0x65])),
    ]);
    for (const chunkSize of [1, 3, 100, 4096, stream.length]) {
      const { sink, got } = collector();
      const reader = new FrameReader(sink);
      for (let at = 0; at < stream.length; at += chunkSize) {
        reader.push(stream.subarray(at, at + chunkSize), 1);
      }
      assert.deepEqual(got.errors, [], `chunks of ${chunkSize}`);
      assert.deepEqual(
        got.messages.map((m) => m.length),
        [3, 300, 9, 70_000],
        `chunks of ${chunkSize}`,
      );
      assert.equal(got.messages[0]?.toString(), 'one');
      assert.equal(got.messages[2]?.toString(), 'frag-ment');
      assert.ok(got.messages[3]?.equals(big));
      assert.deepEqual(got.controls, [
        [OPCODE.ping, Buffer.from('hi').toString('hex')],
        [OPCODE.close, '03e8' + Buffer.from('bye').toString('hex')],
      ]);
    }
  });

  void it('refuses a masked server frame', () => {
    const { sink, got } = collector();
    new FrameReader(sink).push(Buffer.from([0x82, 0x81, 0, 0, 0, 0, 0x41]), 1);
    assert.deepEqual(got.errors, ['a server frame is masked']);
    assert.equal(got.messages.length, 0);
  });
});

void describe('WebSocket request templates', () => {
  void it('encodes once with a uint32 id that each send patches, leaving the rest unchanged', () => {
    const payload = wsRequestPayload('simple', '2', SET);
    const doc = unpackr.unpack(payload.bytes) as Record<string, unknown>;
    assert.equal(doc.id, 0xffffffff);
    assert.equal(doc.model, 'simple');
    assert.equal(doc.version, '2');
    const template = new WsFrameTemplate(payload);
    for (const id of [1, 200, 70_000, 0xfffffffe]) {
      const parts = template.bytesFor(id);
      assert.equal(parts.length, 1, 'a small frame is one buffer');
      const frame = parts[0];
      const headerLength = frame.length - payload.bytes.length;
      assert.equal(frame[0], 0x82);
      const sent = unpackr.unpack(frame.subarray(headerLength)) as Record<string, unknown>;
      assert.equal(sent.id, id);
      const inputs = sent.inputs as { name: string; data: Uint8Array }[];
      assert.deepEqual([...(inputs[0]?.data ?? [])], [7, 0, 0, 0, 8, 0, 0, 0]);
      // BYTES: one 4-byte little-endian length, then the UTF-8 bytes.
      assert.deepEqual(
        Buffer.from(inputs[1]?.data ?? []),
        Buffer.concat([Buffer.from([6, 0, 0, 0]), Buffer.from('héllo')]),
      );
    }
  });

  void it('splits a large frame into a fresh head and the shared, unchanged tail', () => {
    const elements = Array.from({ length: 5000 }, (_, i) => i);
    const payload = wsRequestPayload('m', '', [
      { name: 'X', datatype: 'INT32', shape: [5000], elements },
    ]);
    const template = new WsFrameTemplate(payload);
    const a = template.bytesFor(11);
    const b = template.bytesFor(12);
    assert.equal(a.length, 2);
    assert.equal(b.length, 2);
    assert.ok(a[1]?.buffer === b[1]?.buffer, 'the tail is shared, not copied');
    const whole = Buffer.concat(a as Buffer[]);
    const headerLength = whole.length - payload.bytes.length;
    const sent = unpackr.unpack(whole.subarray(headerLength)) as { id: number; inputs: unknown[] };
    assert.equal(sent.id, 11);
    assert.equal(
      (unpackr.unpack(Buffer.concat(b as Buffer[]).subarray(headerLength)) as { id: number }).id,
      12,
    );
  });

  void it('reads the id and outcome of a response, with or without the fast path', () => {
    const outputs = [{ name: 'OUT', datatype: 'INT32', shape: [1], data: Buffer.alloc(4) }];
    const ok = (id: number): Buffer =>
      packr.pack({ id, model_name: 'm', model_version: '1', outputs });
    for (const id of [0, 5, 200, 60_000, 0xffffffff]) {
      assert.deepEqual(readReply(ok(id)), { id, error: null });
    }
    assert.deepEqual(readReply(packr.pack({ id: 9, error: { code: 'BAD_SHAPE', message: 'x' } })), {
      id: 9,
      error: 'BAD_SHAPE: x',
    });
    // Keys in another order take the full decode and mean the same.
    assert.deepEqual(readReply(packr.pack({ model_name: 'm', outputs, id: 4 })), {
      id: 4,
      error: null,
    });
    assert.deepEqual(
      readReply(packr.pack({ error: { code: 'QUEUE_FULL', message: 'cap 1' }, id: 3 })),
      { id: 3, error: 'QUEUE_FULL: cap 1' },
    );
    assert.equal(readReply(Buffer.from([0xc1])).id, undefined);
  });
});
