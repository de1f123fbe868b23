// The msgpack frame codec on its own: requests built by the client codec decode to the same
// fields, payloads are copied exactly when the frame memory is volatile, hostile frames are refused
// with or without an id, and no input makes the decoder throw.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { msgpackClientCodec } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import { InferenceServerError, isErrorCode } from '../../../src/errors.js';
import { decodeMsgpackFrame, msgpackCodec } from '../../../src/websocket/msgpack-frames.js';
import { scanMsgpack } from '../../../src/websocket/msgpack-scan.js';

const packr = new Packr({ useRecords: false });

void describe('msgpack frames', () => {
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
    assert.equal(r.frame.id, 7);
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

  void it('decodes a cancel frame', () => {
    const r = decodeMsgpackFrame(msgpackClientCodec.encodeCancel(12), true);
    assert.deepEqual(r, { ok: true, frame: { kind: 'cancel', id: 12 } });
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
      assert.equal(r.id, id);
      assert.equal(r.error.code, 'BAD_REQUEST');
      assert.match(r.error.message, new RegExp(message));
    });
  }

  void it('reads ids of every integer width and strings, and refuses unusable ones', () => {
    for (const id of [0, 127, 255, 65535, 2 ** 32 - 1, 2 ** 53 - 1, 'x', 'a'.repeat(256)]) {
      assert.equal(scanMsgpack(packr.pack({ id, junk: 1 })).ok, true);
      assert.equal((scanMsgpack(packr.pack({ id })) as { id: unknown }).id, id);
    }
    for (const id of [-1, 1.5, '', 'a'.repeat(257), true, null]) {
      assert.equal((scanMsgpack(packr.pack({ id })) as { id: unknown }).id, undefined, String(id));
    }
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
    const out = msgpackCodec.encodeResponse(5, {
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
    });
    const reply = msgpackClientCodec.decodeReply(out);
    assert.ok('result' in reply);
    assert.equal(reply.id, 5);
    assert.deepEqual([...(reply.result.outputs[0]?.data as Int16Array)], [1, 2]);
    const err = msgpackClientCodec.decodeReply(
      msgpackCodec.encodeError('q', { code: 'BAD_SHAPE', message: 'nope' }),
    );
    assert.deepEqual(err, { id: 'q', error: { code: 'BAD_SHAPE', message: 'nope' } });
  });
});
