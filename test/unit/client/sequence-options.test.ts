// The client's sequence options (sequenceId, sequenceStart, sequenceEnd) on each wire: the request
// parameters HTTP sends, the InferParameter messages gRPC sends (through the real protos), and
// the WebSocket frame fields of both encodings, each read back by the server's own decoder.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flatbuffersClientCodec, msgpackClientCodec } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import {
  InferenceClientError,
  requestParameters,
  type InferOptions,
} from '../../../src/client/client-types.js';
import { grpcParameters } from '../../../src/client/grpc-transport.js';
import { tritonServices } from '../../../src/grpc/grpc-protos.js';
import { decodeInferRequest, type ModelInferRequest } from '../../../src/grpc/infer-codec.js';
import { decodeJsonRequest } from '../../../src/http/json-request.js';
import { decodeFlatbuffersFrame } from '../../../src/websocket/flatbuffers-frames.js';
import { decodeMsgpackFrame } from '../../../src/websocket/msgpack-frames.js';
import type { DecodeResult } from '../../../src/websocket/ws-frames.js';

const OPTIONS: readonly InferOptions[] = [
  { sequenceId: 42, sequenceStart: true },
  { sequenceId: 'user-7', sequenceEnd: true, parameters: { priority: 1 } },
  { sequenceId: 0, sequenceStart: false, sequenceEnd: false },
  { sequenceId: 2 ** 53 - 1 },
];

/** What the server should decode from each of OPTIONS, whatever the transport. */
const EXPECTED: readonly Record<string, unknown>[] = [
  { sequence_id: 42, sequence_start: true },
  { priority: 1, sequence_id: 'user-7', sequence_end: true },
  { sequence_id: 0, sequence_start: false, sequence_end: false },
  { sequence_id: 2 ** 53 - 1 },
];

const input = tensor('X', 'INT32', [1], Int32Array.of(1));

function overHttp(options: InferOptions): Record<string, unknown> {
  const body = JSON.stringify({
    parameters: requestParameters(options),
    inputs: [{ name: 'X', datatype: 'INT32', shape: [1], data: [1] }],
  });
  return { ...decodeJsonRequest(new TextEncoder().encode(body)).parameters };
}

function overGrpc(options: InferOptions): Record<string, unknown> {
  const method = tritonServices().inference['ModelInfer'];
  if (method === undefined) throw new Error('no ModelInfer in the protos');
  const bytes = method.requestSerialize({
    model_name: 'm',
    parameters: grpcParameters(options),
    inputs: [{ name: 'X', datatype: 'INT32', shape: [1] }],
    raw_input_contents: [Buffer.alloc(4)],
  });
  const msg = method.requestDeserialize(bytes) as ModelInferRequest;
  return { ...decodeInferRequest(msg).parameters };
}

function decodedFrame(r: DecodeResult): Record<string, unknown> {
  assert.ok(r.ok && r.frame.kind === 'infer', JSON.stringify(r));
  return { ...r.frame.request.parameters };
}

void describe('client sequence options', () => {
  const transports: readonly [string, (o: InferOptions) => Record<string, unknown>][] = [
    ['HTTP parameters', overHttp],
    ['gRPC InferParameters', overGrpc],
    [
      'msgpack frame fields',
      (o) =>
        decodedFrame(
          decodeMsgpackFrame(msgpackClientCodec.encodeRequest(1, 'm', [input], o), false),
        ),
    ],
    [
      'FlatBuffers frame fields',
      (o) =>
        decodedFrame(
          decodeFlatbuffersFrame(flatbuffersClientCodec.encodeRequest(1, 'm', [input], o), false),
        ),
    ],
  ];
  for (const [name, send] of transports) {
    void it(`reach the server's request parameters as ${name}`, () => {
      OPTIONS.forEach((o, i) => assert.deepEqual(send(o), EXPECTED[i], JSON.stringify(o)));
    });
  }

  void it('go as int64_param (integer id), string_param and bool_param over gRPC', () => {
    assert.deepEqual(grpcParameters({ sequenceId: 7, sequenceStart: true }), {
      sequence_id: { int64_param: 7 },
      sequence_start: { bool_param: true },
    });
    assert.deepEqual(grpcParameters({ sequenceId: 's', sequenceEnd: false }), {
      sequence_id: { string_param: 's' },
      sequence_end: { bool_param: false },
    });
  });

  void it('are refused when also in parameters, or when the id is not a safe integer >= 0', () => {
    const refused = (options: InferOptions, message: string) =>
      assert.throws(
        () => requestParameters(options),
        (e: unknown) => {
          assert.ok(e instanceof InferenceClientError);
          assert.deepEqual([e.code, e.message], ['OPTIONS', message]);
          return true;
        },
      );
    refused(
      { sequenceId: 1, parameters: { sequence_id: 1 } },
      "infer option 'sequenceId' and parameters.sequence_id are both set; set one of them",
    );
    refused(
      { sequenceEnd: true, parameters: { sequence_end: true } },
      "infer option 'sequenceEnd' and parameters.sequence_end are both set; set one of them",
    );
    for (const id of [-1, 1.5, 2 ** 53]) {
      refused(
        { sequenceId: id },
        `infer option 'sequenceId' must be an integer in [0, 2^53-1] or a string, got ${id}`,
      );
    }
    // The WebSocket codecs refuse the same way, before anything is sent.
    assert.throws(
      () => msgpackClientCodec.encodeRequest(1, 'm', [input], { sequenceId: -1 }),
      InferenceClientError,
    );
    assert.throws(
      () => flatbuffersClientCodec.encodeRequest(1, 'm', [input], { sequenceId: 1.5 }),
      InferenceClientError,
    );
  });

  void it('leave requests without them as they were', () => {
    assert.deepEqual(requestParameters({ parameters: { priority: 2 } }), { priority: 2 });
    assert.deepEqual(grpcParameters({}), {});
    assert.deepEqual(overHttp({}), {});
  });
});
