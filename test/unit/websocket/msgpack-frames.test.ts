// The msgpack frame codec on its own: requests built by the client codec decode to the same
// fields, payloads are copied exactly when the frame memory is volatile, hostile frames are refused
// with or without an id, and no input makes the decoder throw.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Packr, Unpackr } from 'msgpackr';
import { msgpackClientCodec } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import { InferenceServerError, isErrorCode } from '../../../src/errors.js';
import { decodeMsgpackFrame, msgpackCodec } from '../../../src/websocket/msgpack-frames.js';
import type { FrameId } from '../../../src/websocket/frame-id.js';
import { scanMsgpack } from '../../../src/websocket/msgpack-scan.js';

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

void describe('msgpack frames', () => {
  void it('refuses an oversized tensor list from the scan, before the frame is unpacked', () => {
    // No model either: unpacked and read field by field, that would be reported first. Counted by
    // the scan, the list is refused before msgpackr makes an object of each of its 2000 entries.
    for (const key of ['inputs', 'outputs'] as const) {
      const entries = Array.from({ length: 2000 }, () => ({}));
      const r = decodeMsgpackFrame(packr.pack({ id: 4, [key]: entries }), false);
      assert.ok(!r.ok && !r.close);
      assert.equal(r.id?.key, 4);
      assert.equal(r.error.code, 'TOO_MANY_TENSORS');
      assert.equal(r.error.message, `a request may name at most 1024 ${key}, got 2000`);
    }
    // The last of a repeated key stands, as in msgpackr's object.
    const many = Array.from({ length: 2000 }, () => ({}));
    const bytes = Buffer.concat([
      Buffer.from([0x83, 0xa2, 0x69, 0x64, 0x04, 0xa6, ...Buffer.from('inputs')]),
      packr.pack(many),
      Buffer.from([0xa6, ...Buffer.from('inputs'), 0x90]),
    ]);
    const last = decodeMsgpackFrame(bytes, false);
    assert.ok(!last.ok);
    assert.notEqual(last.error.code, 'TOO_MANY_TENSORS');
  });

  void it('decodes what the client encodes, field for field', () => {
    const frame = msgpackClientCodec.encodeRequest(
      7,
      'simple',
      [tensor('INPUT0', 'FP32', [1, 2], Float32Array.of(1.5, -2))],
      { version: 3, outputs: ['OUTPUT0'], parameters: { priority: 2, timeout: 1000 } },
    );
    const r = decodeMsgpackFrame(frame, false);
    assert.ok(r.ok);
    assert.equal(r.frame.kind, 'infer');
    if (r.frame.kind !== 'infer') return;
    assert.equal(r.frame.id.key, 7);
    assert.equal(r.frame.model, 'simple');
    assert.equal(r.frame.version, '3');
    assert.deepEqual({ ...r.frame.request.parameters }, { priority: 2, timeout: 1000 });
    assert.deepEqual(
      r.frame.request.outputs?.map((o) => o.name),
      ['OUTPUT0'],
    );
    const input = r.frame.request.inputs[0];
    assert.equal(input?.name, 'INPUT0');
    assert.deepEqual(input?.shape, [1, 2]);
    assert.equal(input?.data.kind, 'raw');
    if (input?.data.kind !== 'raw') return;
    assert.deepEqual(Buffer.from(input.data.bytes), Buffer.from(Float32Array.of(1.5, -2).buffer));
  });

  void it('reads integers written as 64-bit formats like any other integer', () => {
    // msgpackr writes a bigint as an int 64, as some libraries write every integer.
    const r = decodeMsgpackFrame(
      packr.pack({
        id: 1,
        model: 'm',
        version: 3n,
        inputs: [{ name: 'X', datatype: 'UINT8', shape: [1n, 2n], data: Buffer.from([1, 2]) }],
        parameters: { priority: 1n, timeout: 2n ** 62n },
      }),
      false,
    );
    assert.ok(
      r.ok && r.frame.kind === 'infer',
      JSON.stringify(r, (_, v: unknown) => String(v)),
    );
    assert.equal(r.frame.version, '3');
    assert.deepEqual(r.frame.request.inputs[0]?.shape, [1, 2]);
    assert.deepEqual({ ...r.frame.request.parameters }, { priority: 1, timeout: 2 ** 62 });
  });

  void it('copies payloads out of volatile frames and views stable ones', () => {
    const frame = Buffer.from(
      packr.pack({
        id: 'a',
        model: 'm',
        inputs: [{ name: 'X', datatype: 'UINT8', shape: [3], data: Buffer.from([1, 2, 3]) }],
      }),
    );
    const payload = (volatile: boolean): Uint8Array => {
      const r = decodeMsgpackFrame(frame, volatile);
      assert.ok(r.ok && r.frame.kind === 'infer');
      const d = r.frame.request.inputs[0]?.data;
      assert.ok(d?.kind === 'raw');
      return d.bytes;
    };
    const copied = payload(true);
    const viewed = payload(false);
    frame.fill(0); // what uWS does to the memory after the callback, in effect
    assert.deepEqual([...copied], [1, 2, 3]);
    assert.deepEqual([...viewed], [0, 0, 0]);
  });

  void it('takes BYTES as an array of strings and bins', () => {
    const r = decodeMsgpackFrame(
      packr.pack({
        id: 1,
        model: 'm',
        inputs: [{ name: 'S', datatype: 'BYTES', shape: [2], data: ['hi', Buffer.from([0xff])] }],
      }),
      true,
    );
    assert.ok(r.ok && r.frame.kind === 'infer');
    const d = r.frame.request.inputs[0]?.data;
    assert.ok(d?.kind === 'raw');
    assert.deepEqual([...d.bytes], [2, 0, 0, 0, 0x68, 0x69, 1, 0, 0, 0, 0xff]);
  });

  void it('sends the client sequence options as frame fields the server maps to parameters', () => {
    const frame = msgpackClientCodec.encodeRequest(
      4,
      'seq',
      [tensor('X', 'INT32', [1], Int32Array.of(1))],
      {
        sequenceId: 'user-7',
        sequenceStart: true,
        sequenceEnd: false,
        parameters: { priority: 1 },
      },
    );
    const doc = unpackr.unpack(frame) as Record<string, unknown>;
    assert.deepEqual(
      [doc['sequence_id'], doc['sequence_start'], doc['sequence_end'], doc['parameters']],
      ['user-7', true, false, { priority: 1 }],
    );
    const r = decodeMsgpackFrame(frame, false);
    assert.ok(r.ok && r.frame.kind === 'infer');
    assert.deepEqual(
      { ...r.frame.request.parameters },
      { priority: 1, sequence_id: 'user-7', sequence_start: true, sequence_end: false },
    );
  });

  void it('refuses sequence frame fields of the wrong type, and takes nil as absent', () => {
    const frame = (fields: Record<string, unknown>) =>
      decodeMsgpackFrame(
        packr.pack({
          id: 'q',
          model: 'm',
          inputs: [{ name: 'I', datatype: 'UINT8', shape: [1], data: Buffer.of(1) }],
          ...fields,
        }),
        false,
      );
    const refusals: readonly [Record<string, unknown>, string][] = [
      [{ sequence_start: 'yes' }, "frame field 'sequence_start' must be a boolean, got a string"],
      [{ sequence_end: 0 }, "frame field 'sequence_end' must be a boolean, got the number 0"],
      [
        { sequence_id: -1 },
        "frame field 'sequence_id' must be an integer >= 0 or a string, got the number -1",
      ],
      [
        { sequence_id: 1.5 },
        "frame field 'sequence_id' must be an integer >= 0 or a string, got the number 1.5",
      ],
      [
        { sequence_id: Buffer.of(1, 2) },
        "frame field 'sequence_id' must be an integer >= 0 or a string, got a bin of 2 bytes",
      ],
      [
        { sequence_id: [7] },
        "frame field 'sequence_id' must be an integer >= 0 or a string, got an array of 1",
      ],
    ];
    for (const [fields, message] of refusals) {
      const r = frame(fields);
      assert.ok(!r.ok && !r.close, JSON.stringify(fields));
      assert.deepEqual([r.id?.key, r.error.code, r.error.message], ['q', 'BAD_PARAMETER', message]);
    }
    const r = frame({ sequence_id: null, sequence_start: null, parameters: { sequence_id: 9 } });
    assert.ok(r.ok && r.frame.kind === 'infer');
    assert.deepEqual({ ...r.frame.request.parameters }, { sequence_id: 9 });
  });

  void it('decodes a cancel frame', () => {
    const r = decodeMsgpackFrame(msgpackClientCodec.encodeCancel(12), true);
    assert.deepEqual(r, {
      ok: true,
      frame: { kind: 'cancel', id: { key: 12, msgpack: Uint8Array.of(12) } },
    });
  });

  const refusals: readonly [string, Uint8Array, string | number | undefined, string][] = [
    [
      'array32 claiming 2^32-1 entries',
      Buffer.from('ddffffffff0000000000', 'hex'),
      undefined,
      'must be a msgpack map',
    ],
    [
      'map32 claiming 2^32-1 entries',
      Buffer.from('dfffffffff0000000000', 'hex'),
      undefined,
      'claims 4294967295 entries',
    ],
    [
      'deep nesting',
      Buffer.concat([
        Buffer.from('82a2696405a178', 'hex'),
        Buffer.alloc(10_000, 0x91),
        Buffer.from([0xc0]),
      ]),
      5,
      'deeper than',
    ],
    [
      'a truncated bin after the id',
      Buffer.from('82a2696409a164c6000000ff0102', 'hex'),
      9,
      'claims 255 bytes',
    ],
    ['trailing bytes', Buffer.from('81a2696401c0', 'hex'), 1, 'follow the end'],
    ['a non-string key', Buffer.from('82a269640301c0', 'hex'), 3, 'keys must be strings'],
    ['an ext value', Buffer.from('82a2696402a178d4010a', 'hex'), 2, 'not allowed'],
    ['the reserved 0xc1', Buffer.from('81a178c1', 'hex'), undefined, 'not allowed'],
  ];
  for (const [what, bytes, id, message] of refusals) {
    void it(`refuses ${what}${id === undefined ? ' without an id' : ' and keeps its id'}`, () => {
      const r = decodeMsgpackFrame(bytes, true);
      assert.equal(r.ok, false);
      if (r.ok) return;
      // Without a usable id the socket is closed (1007); with one, the error frame carries it.
      assert.equal(r.close ? undefined : r.id?.key, id);
      assert.equal(r.error.code, 'BAD_REQUEST');
      assert.match(r.error.message, new RegExp(message));
    });
  }

  void it('reads ids of every integer width and strings, and refuses unusable ones', () => {
    for (const id of [0, 127, 255, 65535, 2 ** 32 - 1, 2 ** 53 - 1, 'x', 'a'.repeat(256)]) {
      assert.equal(scanMsgpack(packr.pack({ id, junk: 1 })).ok, true);
      const reading = scanMsgpack(packr.pack({ id })).id;
      assert.ok(reading.kind === 'valid', String(id));
      assert.equal(reading.id.key, id);
    }
    for (const id of [-1, 1.5, '', 'a'.repeat(257), true, null]) {
      assert.equal(scanMsgpack(packr.pack({ id })).id.kind, 'invalid', String(id));
    }
    assert.deepEqual(scanMsgpack(packr.pack({ model: 'm' })).id, { kind: 'absent' });
  });

  /** A cancel frame whose id value is exactly these msgpack bytes (hex). */
  const cancelWithId = (idHex: string): Uint8Array =>
    Buffer.from(`82a26964${idHex}a663616e63656cc3`, 'hex');
  const str = (text: string, header: string): string => header + Buffer.from(text).toString('hex');
  /** The hex of an error frame's id value, for an id decoded from `idHex`. */
  const echoed = (idHex: string): string => {
    const r = decodeMsgpackFrame(cancelWithId(idHex), true);
    assert.ok(r.ok, JSON.stringify(r));
    const frame = msgpackCodec.encodeError(r.frame.id, { code: 'CANCELLED', message: 'x' });
    // 82 a2 69 64 <id> a5 "error" ...
    const hex = Buffer.from(frame).toString('hex');
    return hex.slice(8, hex.indexOf('a56572726f72'));
  };

  const usableIds: readonly [string, string, string | number][] = [
    ['a positive fixint', '00', 0],
    ['a uint 8', 'ccff', 255],
    ['a uint 16', 'cdffff', 65535],
    ['a uint 32', 'ceffffffff', 2 ** 32 - 1],
    ['a uint 64 of 5', 'cf0000000000000005', 5],
    ['a uint 64 of 2^32', 'cf0000000100000000', 2 ** 32],
    ['a uint 64 of 2^53-1', 'cf001fffffffffffff', 2 ** 53 - 1],
    ['a non-negative int 8', 'd005', 5],
    ['a non-negative int 64', 'd30000000000000007', 7],
    ['the float 64 5.0 (msgpackr writes integers from 2^32 up this way)', 'cb4014000000000000', 5],
    ['the float 64 2^40', 'cb4270000000000000', 2 ** 40],
    ['the float 32 3.0', 'ca40400000', 3],
    ['the float 64 -0.0, as 0', 'cb8000000000000000', 0],
    ['a fixstr', 'a178', 'x'],
    ['a str 8 of 255 bytes', str('b'.repeat(255), 'd9ff'), 'b'.repeat(255)],
    ['a str 16 of 256 bytes', str('b'.repeat(256), 'da0100'), 'b'.repeat(256)],
    ['a str 16 of 3 bytes', str('abc', 'da0003'), 'abc'],
    ['a str 32 of 2 bytes', str('ab', 'db00000002'), 'ab'],
  ];
  for (const [what, hex, key] of usableIds) {
    void it(`takes ${what} as the id ${JSON.stringify(key).slice(0, 20)}, echoed byte for byte`, () => {
      const r = decodeMsgpackFrame(cancelWithId(hex), true);
      assert.ok(r.ok && r.frame.kind === 'cancel', JSON.stringify(r));
      assert.equal(r.frame.id.key, key);
      assert.equal(echoed(hex), hex);
    });
  }

  const unusableIds: readonly [string, string, RegExp][] = [
    ['2^53 as a uint 64', 'cf0020000000000000', /got the uint 64 9007199254740992, above 2\^53-1/],
    ['2^64-1', 'cfffffffffffffffff', /uint 64 18446744073709551615, above/],
    ['2^53 as a float 64', 'cb4340000000000000', /float 64 9007199254740992, above/],
    ['-1', 'ff', /negative fixint -1, below 0/],
    ['-1 as an int 64', 'd3ffffffffffffffff', /int 64 -1, below 0/],
    ['the float 1.5', 'ca3fc00000', /got the float 32 1.5, which is not an integer/],
    ['NaN', 'cb7ff8000000000000', /float 64 NaN, which is not an integer/],
    ['an empty string', 'a0', /got an empty string/],
    ['a 257-byte string', str('a'.repeat(257), 'da0101'), /got a string of 257 bytes/],
    ['a string that is not UTF-8', 'a2c328', /not valid UTF-8/],
    ['true', 'c3', /got the boolean true/],
    ['nil', 'c0', /got nil/],
    ['a bin', 'c40100', /got a bin/],
    ['an array', '9101', /got an array/],
    ['a map', '80', /got a map/],
  ];
  for (const [what, hex, message] of unusableIds) {
    void it(`answers an id of ${what} with BAD_ID under a nil id, and never runs the frame`, () => {
      const r = decodeMsgpackFrame(cancelWithId(hex), true);
      assert.ok(!r.ok && !r.close, JSON.stringify(r));
      assert.equal(r.id, null);
      assert.equal(r.error.code, 'BAD_ID');
      assert.match(r.error.message, message);
      assert.match(r.error.message, /must be a string of 1-256 bytes or an integer 0..2\^53-1/);
    });
  }

  void it('answers a map without an id with BAD_ID under a nil id', () => {
    const r = decodeMsgpackFrame(packr.pack({ model: 'simple', inputs: [] }), true);
    assert.ok(!r.ok && !r.close);
    assert.equal(r.id, null);
    assert.equal(r.error.code, 'BAD_ID');
    assert.match(r.error.message, /got no 'id'/);
  });

  void it('writes an id that did not arrive in msgpack in its smallest format, and nil as nil', () => {
    const err = { code: 'BAD_SHAPE', message: 'x' } as const;
    const idHex = (id: FrameId | null): string =>
      Buffer.from(msgpackCodec.encodeError(id, err)).subarray(4, 13).toString('hex');
    assert.ok(idHex({ key: 5 }).startsWith('05'));
    assert.ok(idHex({ key: 255 }).startsWith('ccff'));
    assert.ok(idHex({ key: 2 ** 32 - 1 }).startsWith('ceffffffff'));
    assert.equal(idHex({ key: 2 ** 32 }), 'cf0000000100000000');
    assert.ok(idHex({ key: '5' }).startsWith('a135'));
    assert.ok(idHex(null).startsWith('c0'));
  });

  void it('writes frames exactly as msgpackr reads them, at every length boundary', () => {
    for (const n of [0, 31, 32, 255, 256, 65535, 65536]) {
      const text = 'é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2);
      const data = new Uint8Array(n).map((_, i) => i);
      const shape = [n, 2 ** 32 + n, 127, 128, 65535, 65536];
      const outputs = Array.from({ length: n === 32 ? 17 : 1 }, () => ({
        name: text,
        datatype: 'UINT8' as const,
        shape,
        data,
        binary: false,
      }));
      const bytes = msgpackCodec.encodeResponse(
        { key: text === '' ? 'i' : text },
        { model_name: 'm', model_version: text, outputs },
      );
      const doc = unpackr.unpack(bytes) as any;
      assert.equal(doc.id, text === '' ? 'i' : text);
      assert.equal(doc.model_version, text);
      assert.equal(doc.outputs.length, outputs.length);
      assert.equal(doc.outputs[0].name, text);
      assert.deepEqual(doc.outputs[0].shape.map(Number), shape);
      assert.deepEqual(new Uint8Array(doc.outputs[0].data), data);
      const err = unpackr.unpack(
        msgpackCodec.encodeError({ key: n }, { code: 'INTERNAL', message: text }),
      );
      assert.deepEqual(err, { id: n, error: { code: 'INTERNAL', message: text } });
    }
  });

  void it('never overwrites a frame already handed out, however many follow it', () => {
    const err = (i: number) => ({ code: 'BAD_SHAPE', message: `message ${i}` }) as const;
    const first = msgpackCodec.encodeError({ key: 1 }, err(1));
    const copy = Buffer.from(first);
    // Enough small frames to fill several 64 KiB slabs, and a large one of its own.
    for (let i = 0; i < 5000; i++) msgpackCodec.encodeError({ key: i }, err(i));
    msgpackCodec.encodeResponse(
      { key: 2 },
      {
        model_name: 'm',
        model_version: '1',
        outputs: [
          {
            name: 'Y',
            datatype: 'UINT8',
            shape: [1 << 20],
            data: new Uint8Array(1 << 20),
            binary: false,
          },
        ],
      },
    );
    assert.deepEqual(Buffer.from(first), copy);
  });

  void it('never pollutes Object.prototype', () => {
    const r = decodeMsgpackFrame(
      packr.pack(
        JSON.parse(
          '{"__proto__":{"polluted":1},"id":1,"model":"m","inputs":[],' +
            '"parameters":{"__proto__":{"polluted":1}}}',
        ),
      ),
      true,
    );
    assert.equal(r.ok, false); // a parameter value must be a scalar
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  void it('never throws, and refuses only with catalogued errors (fuzzed)', () => {
    const valid = msgpackClientCodec.encodeRequest(
      1,
      'simple',
      [tensor('A', 'INT32', [2], Int32Array.of(1, 2))],
      {},
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          // Valid frames with bytes flipped or cut: exercises deep paths of the decoder.
          fc
            .tuple(fc.nat(valid.length - 1), fc.nat(255), fc.nat(valid.length))
            .map(([at, b, cut]) => {
              const copy = Uint8Array.from(valid);
              copy[at] = b;
              return copy.subarray(0, Math.max(1, cut));
            }),
          fc.anything().map((v) => {
            try {
              return packr.pack(v);
            } catch {
              return new Uint8Array(0);
            }
          }),
        ),
        (bytes) => {
          const r = decodeMsgpackFrame(bytes, true);
          if (!r.ok) {
            assert.ok(r.error instanceof InferenceServerError);
            assert.ok(isErrorCode(r.error.code));
          }
        },
      ),
      { numRuns: 2000 },
    );
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  void it('encodes responses with outputs as bin and errors with their code', () => {
    const out = msgpackCodec.encodeResponse(
      { key: 5 },
      {
        model_name: 'm',
        model_version: '1',
        outputs: [
          {
            name: 'Y',
            datatype: 'INT16',
            shape: [2],
            data: new Uint8Array([1, 0, 2, 0]),
            binary: false,
          },
        ],
      },
    );
    const reply = msgpackClientCodec.decodeReply(out);
    assert.ok('result' in reply);
    assert.equal(reply.id, 5);
    assert.deepEqual([...(reply.result.outputs[0]?.data as Int16Array)], [1, 2]);
    const err = msgpackClientCodec.decodeReply(
      msgpackCodec.encodeError({ key: 'q' }, { code: 'BAD_SHAPE', message: 'nope' }),
    );
    assert.deepEqual(err, { id: 'q', error: { code: 'BAD_SHAPE', message: 'nope' } });
  });
});
