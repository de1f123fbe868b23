// The FlatBuffers frame codec: client-built requests decode to the same fields, response payloads
// sit 16-byte aligned in the frame (viewable without a copy), hostile bytes are refused without
// throwing, and the committed generated code matches what flatc produces from the schema.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Builder, ByteBuffer } from 'flatbuffers';
import { flatbuffersClientCodec } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import { InferenceServerError } from '../../../src/errors.js';
import {
  decodeFlatbuffersFrame,
  encodeFlatbuffersError,
  encodeFlatbuffersResponse,
  PAYLOAD_ALIGNMENT,
} from '../../../src/websocket/flatbuffers-frames.js';
import {
  Cancel,
  ClientFrame,
  InferRequest,
  ServerFrame,
} from '../../../schemas/generated/infernode-ws_generated.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { tempDirSync } from '../../helpers/temp-dir.js';

void describe('FlatBuffers frames', () => {
  void it('decodes what the client encodes, field for field', () => {
    const frame = flatbuffersClientCodec.encodeRequest(
      9,
      'mlp',
      [
        tensor('A', 'INT64', [1, 2], BigInt64Array.of(-1n, 2n ** 62n)),
        tensor('S', 'BYTES', [1], ['x']),
      ],
      {
        version: '2',
        outputs: ['Y'],
        parameters: { priority: 1, tag: 'a', flag: true, ratio: 0.5 },
      },
    );
    const r = decodeFlatbuffersFrame(frame, true);
    assert.ok(r.ok && r.frame.kind === 'infer', JSON.stringify(r));
    assert.deepEqual(r.frame.id, { key: '9' });
    assert.equal(r.frame.model, 'mlp');
    assert.equal(r.frame.version, '2');
    assert.deepEqual(
      { ...r.frame.request.parameters },
      { priority: 1, tag: 'a', flag: true, ratio: 0.5 },
    );
    assert.deepEqual(
      r.frame.request.outputs?.map((o) => o.name),
      ['Y'],
    );
    const [a, s] = r.frame.request.inputs;
    assert.deepEqual(a?.shape, [1, 2]);
    assert.ok(a?.data.kind === 'raw' && s?.data.kind === 'raw');
    assert.deepEqual(
      Buffer.from(a.data.bytes),
      Buffer.from(BigInt64Array.of(-1n, 2n ** 62n).buffer),
    );
    assert.deepEqual([...s.data.bytes], [1, 0, 0, 0, 0x78]);
  });

  void it('sends the client sequence options as frame fields the server maps to parameters', () => {
    const decoded = (options: Parameters<typeof flatbuffersClientCodec.encodeRequest>[3]) => {
      const frame = flatbuffersClientCodec.encodeRequest(
        5,
        'seq',
        [tensor('X', 'INT32', [1], Int32Array.of(1))],
        options,
      );
      const r = decodeFlatbuffersFrame(frame, false);
      assert.ok(r.ok && r.frame.kind === 'infer', JSON.stringify(r));
      return { ...r.frame.request.parameters };
    };
    assert.deepEqual(decoded({ sequenceId: 2 ** 53 - 1, sequenceStart: true }), {
      sequence_id: 2 ** 53 - 1,
      sequence_start: true,
    });
    // 0 and false are written, not dropped as the schema defaults.
    assert.deepEqual(decoded({ sequenceId: 0, sequenceStart: false, sequenceEnd: false }), {
      sequence_id: 0,
      sequence_start: false,
      sequence_end: false,
    });
    assert.deepEqual(
      decoded({ sequenceId: 'user-7', sequenceEnd: true, parameters: { tag: 'a' } }),
      {
        tag: 'a',
        sequence_id: 'user-7',
        sequence_end: true,
      },
    );
  });

  void it('refuses both spellings of the sequence id, and an id past 2^53-1 with its digits', () => {
    const frame = (write: (b: Builder) => void, strings: (b: Builder) => number[]) => {
      const b = new Builder(256);
      const [id, model, inputs, seqString] = [
        b.createString('s'),
        b.createString('m'),
        InferRequest.createInputsVector(b, []),
        ...strings(b),
      ];
      InferRequest.startInferRequest(b);
      InferRequest.addId(b, id as number);
      InferRequest.addModel(b, model as number);
      InferRequest.addInputs(b, inputs as number);
      if (seqString !== undefined) InferRequest.addSequenceIdString(b, seqString);
      write(b);
      const request = InferRequest.endInferRequest(b);
      ClientFrame.startClientFrame(b);
      ClientFrame.addInfer(b, request);
      b.finish(ClientFrame.endClientFrame(b));
      return decodeFlatbuffersFrame(b.asUint8Array(), false);
    };
    const both = frame(
      (b) => InferRequest.addSequenceId(b, 7n),
      (b) => [b.createString('seven')],
    );
    assert.ok(!both.ok && !both.close);
    assert.deepEqual(
      [both.id?.key, both.error.code, both.error.message],
      [
        's',
        'BAD_PARAMETER',
        "frame fields 'sequence_id' and 'sequence_id_string' are both set; set at most one",
      ],
    );
    const huge = frame(
      (b) => InferRequest.addSequenceId(b, 2n ** 64n - 1n),
      () => [],
    );
    assert.ok(!huge.ok && !huge.close);
    assert.equal(
      huge.error.message,
      "frame field 'sequence_id' must be at most 2^53-1 (9007199254740991), the largest integer " +
        'id carried exactly; use a smaller id or a string id, got the integer 18446744073709551615',
    );
  });

  void it('decodes a cancel frame', () => {
    const r = decodeFlatbuffersFrame(flatbuffersClientCodec.encodeCancel(4), true);
    assert.deepEqual(r, { ok: true, frame: { kind: 'cancel', id: { key: '4' } } });
  });

  void it('writes each output payload at a 16-byte aligned offset of the frame', () => {
    for (const lengths of [[1], [3, 8, 5], [17, 0, 33, 2]]) {
      const frame = encodeFlatbuffersResponse(
        { key: 'r' },
        {
          model_name: 'm',
          model_version: '1',
          outputs: lengths.map((n, i) => ({
            name: `O${i}`,
            datatype: 'UINT8',
            shape: [n],
            data: Uint8Array.from({ length: n }, (_, k) => k + i),
            binary: false,
          })),
        },
      );
      const root = ServerFrame.getRootAsServerFrame(new ByteBuffer(frame));
      assert.equal(root.outputsLength(), lengths.length);
      lengths.forEach((n, i) => {
        const data = root.outputs(i)?.dataArray();
        assert.ok(data !== null && data !== undefined);
        assert.equal(data.byteLength, n);
        if (n > 0) assert.equal((data.byteOffset - frame.byteOffset) % PAYLOAD_ALIGNMENT, 0);
        assert.deepEqual(
          [...data],
          Array.from({ length: n }, (_, k) => k + i),
        );
      });
    }
  });

  void it('encodes errors the client reads back', () => {
    const reply = flatbuffersClientCodec.decodeReply(
      encodeFlatbuffersError({ key: 3 }, { code: 'QUEUE_FULL', message: 'busy' }),
    );
    assert.deepEqual(reply, { id: 3, error: { code: 'QUEUE_FULL', message: 'busy' } });
  });

  /** A ClientFrame holding a Cancel with this id. */
  function cancelFrame(id: string): Uint8Array {
    const b = new Builder(64);
    const cancel = Cancel.createCancel(b, b.createString(id));
    ClientFrame.startClientFrame(b);
    ClientFrame.addCancel(b, cancel);
    b.finish(ClientFrame.endClientFrame(b));
    return b.asUint8Array();
  }

  void it('answers an empty or over-long id with BAD_ID and no id, and takes 256 bytes', () => {
    for (const [id, got] of [
      ['', 'an empty string'],
      ['é'.repeat(128) + 'x', 'a string of 257 bytes'],
    ] as const) {
      const r = decodeFlatbuffersFrame(cancelFrame(id), true);
      assert.ok(!r.ok && !r.close, JSON.stringify(r));
      assert.equal(r.id, null);
      assert.equal(r.error.code, 'BAD_ID');
      assert.match(r.error.message, new RegExp(`must be a string of 1-256 bytes, got ${got}`));
    }
    assert.deepEqual(decodeFlatbuffersFrame(cancelFrame('é'.repeat(128)), true), {
      ok: true,
      frame: { kind: 'cancel', id: { key: 'é'.repeat(128) } },
    });
    const reply = ServerFrame.getRootAsServerFrame(
      new ByteBuffer(encodeFlatbuffersError(null, { code: 'BAD_ID', message: 'm' })),
    );
    assert.equal(reply.id(), null);
    assert.equal(reply.error()?.code(), 'BAD_ID');
  });

  void it('refuses frames too short to hold a table without an id', () => {
    const r = decodeFlatbuffersFrame(new Uint8Array(4), true);
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.close, true);
  });

  void it('refuses a payload vector that points outside the frame', () => {
    const frame = flatbuffersClientCodec.encodeRequest(
      1,
      'm',
      [tensor('A', 'UINT8', [4], Uint8Array.of(1, 2, 3, 4))],
      {},
    );
    // Find the payload (1,2,3,4) and inflate its length prefix.
    const at = Buffer.from(frame).indexOf(Buffer.from([4, 0, 0, 0, 1, 2, 3, 4]));
    assert.ok(at > 0);
    const hostile = Uint8Array.from(frame);
    hostile[at + 1] = 0x10; // length 4100
    // Inside a larger buffer, as a ws message can be: the view must not reach the bytes after it.
    const backing = new Uint8Array(hostile.length + 8192);
    backing.set(hostile);
    const r = decodeFlatbuffersFrame(backing.subarray(0, hostile.length), false);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.ok(!r.close);
      assert.deepEqual(r.id, { key: '1' });
      assert.match(r.error.message, /outside the frame/);
    }
  });

  void it('refuses a data vector cut by the end of the frame as an undecodable frame', () => {
    const frame = flatbuffersClientCodec.encodeRequest(
      1,
      'm',
      [tensor('A', 'UINT8', [4], Uint8Array.of(1, 2, 3, 4))],
      {},
    );
    const at = Buffer.from(frame).indexOf(Buffer.from([4, 0, 0, 0, 1, 2, 3, 4]));
    assert.ok(at > 0);
    // Inflate the length past the frame's end, in a frame that is its buffer's whole length: the
    // generated dataArray() would throw a RangeError here.
    const hostile = Uint8Array.from(frame);
    hostile[at] = 0xff;
    hostile[at + 1] = 0xff;
    const r = decodeFlatbuffersFrame(hostile, true);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.error.code, 'BAD_REQUEST');
      assert.equal(
        r.error.message,
        `undecodable frame: input 'A' data lies outside the frame (65535 bytes at byte ${at + 4} ` +
          `of a ${hostile.length}-byte frame)`,
      );
    }
  });

  void it('never throws on arbitrary or damaged bytes (fuzzed)', () => {
    const valid = flatbuffersClientCodec.encodeRequest(
      1,
      'm',
      [tensor('A', 'FP32', [2], Float32Array.of(1, 2))],
      {
        parameters: { p: 1 },
      },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.tuple(fc.nat(valid.length - 1), fc.nat(255)).map(([at, b]) => {
            const copy = Uint8Array.from(valid);
            copy[at] = b;
            return copy;
          }),
        ),
        (bytes) => {
          const r = decodeFlatbuffersFrame(bytes, true);
          if (!r.ok) assert.ok(r.error instanceof InferenceServerError);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

void describe('FlatBuffers answers of a decoupled model: ServerFrame.final', () => {
  const id = { key: 'r1' };
  const response = (final?: boolean) =>
    encodeFlatbuffersResponse(id, {
      model_name: 'm',
      model_version: '1',
      ...(final !== undefined && { parameters: { triton_final_response: final } }),
      outputs: [],
    });
  const finalOf = (frame: Uint8Array) =>
    ServerFrame.getRootAsServerFrame(new ByteBuffer(frame)).final();

  void it('is false on a response before the last, true on the last, absent otherwise', () => {
    assert.equal(finalOf(response(false)), false, 'a false is written, not dropped as a default');
    assert.equal(finalOf(response(true)), true);
    assert.equal(finalOf(response()), null);
  });

  void it('is false on a failed response of a request that goes on', () => {
    const error = { code: 'MODEL_EXECUTE_FAILED' as const, message: 'boom' };
    assert.equal(finalOf(encodeFlatbuffersError(id, error, false)), false);
    assert.equal(finalOf(encodeFlatbuffersError(id, error)), null);
  });
});

void describe('committed FlatBuffers TypeScript', () => {
  const flatc = spawnSync('flatc', ['--version'], { encoding: 'utf8' });
  const skip =
    flatc.status === 0 ? false : 'flatc is not installed (apt-get install flatbuffers-compiler)';
  void it('is what flatc generates from schemas/infernode-ws.fbs', { skip }, () => {
    const out = tempDirSync('infernode-flatc-');
    execFileSync('flatc', [
      '--ts',
      '--ts-flat-files',
      '-o',
      out,
      path.join(REPO_ROOT, 'schemas', 'infernode-ws.fbs'),
    ]);
    const committed = path.join(REPO_ROOT, 'schemas', 'generated');
    assert.deepEqual(readdirSync(out).sort(), readdirSync(committed).sort());
    for (const file of readdirSync(out)) {
      assert.equal(
        readFileSync(path.join(out, file), 'utf8'),
        readFileSync(path.join(committed, file), 'utf8'),
        `${file} differs: regenerate with flatc --ts --ts-flat-files -o schemas/generated schemas/infernode-ws.fbs`,
      );
    }
  });
});
