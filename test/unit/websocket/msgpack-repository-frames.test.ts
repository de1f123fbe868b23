// The msgpack repository frames' refusals, which only a self-describing encoding can produce (the
// FlatBuffers schema types every field): `type`, `ready`, `parameters`, the kind of each load and
// unload parameter, and unknown load parameters — each answered under the frame's id with its code
// and exact message; what is left alone (unknown frame keys, other unload parameters); and random
// repository frames, which decode or get catalogued client errors, never a throw.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import type { ErrorCode } from '../../../src/errors.js';
import { decodeMsgpackFrame, msgpackCodec } from '../../../src/websocket/msgpack-frames.js';
import { assertClientError, assertRefused } from './frame-codec-case.js';

const packr = new Packr({ useRecords: false });
const CONFIG = '{"name":"m"}';

function refused(doc: Record<string, unknown>, code: ErrorCode, message: string): void {
  assertRefused(decodeMsgpackFrame(packr.pack({ id: 1, ...doc }), false), 1, code, message);
}

const load = (parameters: unknown) => ({ type: 'model_load', model: 'm', parameters });
const unload = (parameters: unknown) => ({ type: 'model_unload', model: 'm', parameters });

void describe('msgpack repository frames: refusals', () => {
  void it('an unknown type names the ones there are', () => {
    const expected =
      "frame 'type' must be one of 'repository_index', 'model_load', 'model_unload', " +
      "'shm_register', 'shm_unregister', 'shm_status' (or absent, " +
      'for infer and cancel frames), got ';
    refused({ type: 'model_reload' }, 'BAD_REQUEST', `${expected}"model_reload"`);
    refused({ type: 2 }, 'BAD_REQUEST', `${expected}the number 2`);
    refused({ type: 'infer', model: 'm', inputs: [] }, 'BAD_REQUEST', `${expected}"infer"`);
  });

  void it('ready must be a boolean', () => {
    refused(
      { type: 'repository_index', ready: 1 },
      'BAD_REQUEST',
      "frame 'ready' must be a boolean, got the number 1",
    );
  });

  void it('load: the model is required and whitelisted', () => {
    refused({ type: 'model_load' }, 'BAD_REQUEST', "frame 'model' must be a string, got nothing");
    refused(
      { type: 'model_load', model: 'a/b' },
      'BAD_MODEL_NAME',
      'invalid model name "a/b": expected 1-128 characters of [A-Za-z0-9_.-], not "." or ".."',
    );
  });

  void it('load: parameters must be a map of a str config and bin files', () => {
    refused(load([1]), 'BAD_PARAMETER', "load frame 'parameters' must be a map, got an array of 1");
    refused(
      load(Buffer.of(1)),
      'BAD_PARAMETER',
      "load frame 'parameters' must be a map, got a bin of 1 bytes",
    );
    refused(
      load({ config: Buffer.from(CONFIG) }),
      'BAD_PARAMETER',
      `load parameter 'config' must be a str, got a bin of ${CONFIG.length} bytes`,
    );
    refused(
      load({ config: CONFIG, 'file:1/model.onnx': 'AAAA' }),
      'BAD_PARAMETER',
      "load parameter 'file:1/model.onnx' must be a bin, got a string",
    );
    refused(
      load({ config: CONFIG, dependents: true }),
      'BAD_PARAMETER',
      "unrecognized load parameter 'dependents': expected 'config' or 'file:<version>/<name>'",
    );
  });

  void it('unload: the model must be a string; unload_dependents a boolean', () => {
    refused(
      { type: 'model_unload', model: 7 },
      'BAD_REQUEST',
      "frame 'model' must be a string, got the number 7",
    );
    refused(
      unload({ unload_dependents: 'yes' }),
      'BAD_PARAMETER',
      "unload parameter 'unload_dependents' must be a boolean, got a string",
    );
    refused(unload('x'), 'BAD_PARAMETER', "unload frame 'parameters' must be a map, got a string");
  });

  void it('a refusal under an id is answered under that id, as every refusal is', () => {
    const r = decodeMsgpackFrame(packr.pack({ id: 'job-9', type: 'nope' }), false);
    assert.ok(!r.ok && !r.close);
    assert.deepEqual(r.id, { key: 'job-9', msgpack: Uint8Array.from(packr.pack('job-9')) });
  });
});

void describe('msgpack repository frames: what is left alone', () => {
  void it('unknown frame keys and other unload parameters are ignored', () => {
    const r = decodeMsgpackFrame(
      packr.pack({ id: 3, type: 'model_unload', model: 'm', extra: [1], parameters: { x: 1 } }),
      false,
    );
    assert.ok(r.ok);
    assert.deepEqual(r.frame, {
      kind: 'model_unload',
      id: r.frame.id,
      model: 'm',
      request: { unloadDependents: false },
    });
  });

  void it('a frame with a type is a repository frame even if it also says cancel', () => {
    const r = decodeMsgpackFrame(
      packr.pack({ id: 3, type: 'repository_index', cancel: true }),
      false,
    );
    assert.ok(r.ok && r.frame.kind === 'repository_index');
  });

  void it('answers: the index rows in the smallest formats, the id echoed byte for byte', () => {
    const id = { key: 5, msgpack: Uint8Array.of(0xcf, 0, 0, 0, 0, 0, 0, 0, 5) }; // a uint 64
    const bytes = msgpackCodec.encodeRepositoryAnswer(id, { kind: 'model_load' });
    assert.deepEqual(
      Buffer.from(bytes).toString('hex'),
      // {"id": uint64 5, "type": "model_load"}
      '82a26964cf0000000000000005a474797065aa6d6f64656c5f6c6f6164',
    );
  });
});

void describe('msgpack repository frames: hostile input', () => {
  void it('random fields under each type decode, or are refused with a catalogued client error', () => {
    const key = fc.constantFrom('model', 'ready', 'parameters', 'config', 'file:1/m', 'x');
    const value = fc.oneof(
      fc.string(),
      fc.boolean(),
      fc.integer(),
      fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b)),
      fc.dictionary(key, fc.oneof(fc.string(), fc.boolean(), fc.uint8Array({ maxLength: 4 }))),
    );
    const frame = fc.record({
      type: fc.constantFrom('repository_index', 'model_load', 'model_unload', 'other'),
      fields: fc.dictionary(key, value),
    });
    fc.assert(
      fc.property(frame, ({ type, fields }) => {
        const r = decodeMsgpackFrame(packr.pack({ ...fields, id: 1, type }), true);
        assertClientError(r, `${type} ${JSON.stringify(Object.keys(fields))}`);
        if (!r.ok) assert.equal(r.close, false, 'a refusal under a usable id keeps the socket');
      }),
    );
  });
});
