// The hand-written ModelInfer codec against protobufjs (through proto-loader, with the server's
// options): requests decode to exactly the object proto-loader gives, responses encode to bytes
// proto-loader decodes back to what was sent, and malformed bytes are refused, never misread.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPackageDefinition, type MethodDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { PROTO_OPTIONS } from '../../../src/grpc/grpc-protos.js';
import { decodeModelInferRequest } from '../../../src/grpc/infer-request-wire.js';
import {
  encodeModelInferResponse,
  encodeModelStreamInferResponse,
} from '../../../src/grpc/infer-response-wire.js';
import type { ModelInferResponse } from '../../../src/grpc/infer-codec.js';
import { WireError } from '../../../src/grpc/wire-reader.js';

type Method = MethodDefinition<object, object>;
const service = (
  loadPackageDefinition(loadSync('grpc_service.proto', PROTO_OPTIONS)) as unknown as {
    inference: { GRPCInferenceService: { service: Record<string, Method> } };
  }
).inference.GRPCInferenceService.service;
const infer = service['ModelInfer'] as Method;
const stream = service['ModelStreamInfer'] as Method;

/** Buffers compared by content: proto-loader copies bytes, the hand codec keeps views. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

const REQUESTS: Record<string, object> = {
  empty: {},
  raw: {
    model_name: 'mlp',
    model_version: '1',
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784] }],
    raw_input_contents: [Buffer.alloc(3136, 7)],
  },
  typed: {
    model_name: 'ünïcode',
    id: 'req-1',
    inputs: [
      {
        name: 'A',
        datatype: 'INT32',
        shape: [2, '-1'],
        contents: { int_contents: [-1, 0, 2147483647, -2147483648] },
      },
      {
        name: 'B',
        datatype: 'INT64',
        shape: [3],
        contents: { int64_contents: ['-9223372036854775808', '9007199254740993', '5'] },
      },
      {
        name: 'C',
        datatype: 'UINT64',
        shape: [1],
        contents: { uint64_contents: ['18446744073709551615'] },
      },
      { name: 'D', datatype: 'UINT32', shape: [2], contents: { uint_contents: [4294967295, 1] } },
      { name: 'E', datatype: 'BOOL', shape: [2], contents: { bool_contents: [true, false] } },
      { name: 'F', datatype: 'FP32', shape: [2], contents: { fp32_contents: [1.5, -0.25] } },
      { name: 'G', datatype: 'FP64', shape: [1], contents: { fp64_contents: [Math.PI] } },
      {
        name: 'H',
        datatype: 'BYTES',
        shape: [2],
        contents: { bytes_contents: [Buffer.from('hi'), Buffer.alloc(0)] },
      },
    ],
  },
  parameters: {
    model_name: 'simple',
    parameters: {
      sequence_id: { uint64_param: '18446744073709551615' },
      sequence_start: { bool_param: true },
      priority: { int64_param: '-3' },
      label: { string_param: 'x' },
      ratio: { double_param: 0.5 },
      empty: {},
    },
    inputs: [
      {
        name: 'INPUT0',
        datatype: 'INT32',
        shape: [1, 16],
        parameters: { p: { int64_param: '1' } },
      },
    ],
    outputs: [
      { name: 'OUTPUT0', parameters: { binary_data: { bool_param: false } } },
      { name: 'OUTPUT1' },
    ],
    raw_input_contents: [Buffer.alloc(64, 1)],
  },
};

void describe('hand-written ModelInferRequest decoder', () => {
  for (const [name, message] of Object.entries(REQUESTS)) {
    void it(`decodes "${name}" exactly as proto-loader does`, () => {
      const bytes = infer.requestSerialize(message);
      assert.deepEqual(
        plain(decodeModelInferRequest(bytes)),
        plain(infer.requestDeserialize(bytes)),
      );
    });
  }

  void it('reads unpacked repeated scalars; of two contents fields the last stands, as in protobufjs', () => {
    // inputs { shape: 2 (unpacked), shape: 3, contents { fp32: 1.0 }, contents { fp32: 2.0 } }
    const f32 = (v: number): number[] => [...new Uint8Array(new Float32Array([v]).buffer)];
    const input = [0x18, 2, 0x18, 3, 0x2a, 5, 0x35, ...f32(1), 0x2a, 5, 0x35, ...f32(2)];
    const bytes = Buffer.from([0x2a, input.length, ...input]);
    const ours = decodeModelInferRequest(bytes);
    assert.deepEqual(plain(ours), plain(infer.requestDeserialize(bytes)));
    assert.deepEqual(ours.inputs[0]?.shape, ['2', '3']);
    assert.deepEqual(ours.inputs[0]?.contents?.fp32_contents, [2]);
  });

  void it('refuses truncated bytes and unknown wire types with a WireError', () => {
    const bytes = infer.requestSerialize(REQUESTS['raw'] as object);
    for (const cut of [1, 3, bytes.length - 1]) {
      assert.throws(() => decodeModelInferRequest(bytes.subarray(0, cut)), WireError);
    }
    assert.throws(() => decodeModelInferRequest(Buffer.from([0x0b])), WireError);
    assert.throws(() => decodeModelInferRequest(Buffer.from([0x80, 0x80])), WireError);
  });
});

const RESPONSE: ModelInferResponse = {
  model_name: 'mlp',
  model_version: '1',
  id: 'ïd',
  parameters: {
    triton_final_response: { bool_param: false },
    count: { int64_param: -2 },
    name: { string_param: 'n' },
    ratio: { double_param: 0.25 },
  },
  outputs: [
    { name: 'OUTPUT0', datatype: 'FP32', shape: [1, 10], parameters: {} },
    { name: 'SCALAR', datatype: 'INT64', shape: [], parameters: { p: { bool_param: true } } },
  ],
  raw_output_contents: [new Uint8Array(new SharedArrayBuffer(40)).fill(3), new Uint8Array(8)],
};

void describe('hand-written ModelInferResponse encoder', () => {
  void it('writes what proto-loader reads back as the response sent', () => {
    const back = infer.responseDeserialize(encodeModelInferResponse(RESPONSE)) as any;
    assert.equal(back.model_name, 'mlp');
    assert.equal(back.id, 'ïd');
    assert.deepEqual(
      plain(back.outputs.map((o: any) => [o.name, o.datatype, o.shape.map(Number)])),
      [
        ['OUTPUT0', 'FP32', [1, 10]],
        ['SCALAR', 'INT64', []],
      ],
    );
    assert.equal(back.outputs[1].parameters.p.bool_param, true);
    assert.deepEqual(
      Object.fromEntries(
        Object.entries(back.parameters).map(([k, v]: [string, any]) => [
          k,
          [v.parameter_choice, String(v[v.parameter_choice])],
        ]),
      ),
      {
        triton_final_response: ['bool_param', 'false'],
        count: ['int64_param', '-2'],
        name: ['string_param', 'n'],
        ratio: ['double_param', '0.25'],
      },
    );
    assert.deepEqual(plain(back.raw_output_contents), plain(RESPONSE.raw_output_contents));
  });

  void it('writes every string as proto-loader reads it: ASCII and not, short and long', () => {
    for (const text of ['', 'a'.repeat(64), 'b'.repeat(65), 'x🙂y', 'é'.repeat(40), '\ud800']) {
      const back = infer.responseDeserialize(
        encodeModelInferResponse({
          ...RESPONSE,
          model_name: text,
          id: `${text}!`,
          parameters: { s: { string_param: text } },
          outputs: [{ name: text, datatype: 'FP32', shape: [1], parameters: {} }],
          raw_output_contents: [new Uint8Array(4)],
        }),
      ) as any;
      // What UTF-8 can carry of `text`: a lone surrogate arrives as U+FFFD, as Buffer writes it.
      const sent = Buffer.from(text).toString();
      assert.deepEqual(
        [back.model_name, back.id, back.parameters.s.string_param, back.outputs[0].name],
        [sent, `${sent}!`, sent, sent],
      );
    }
  });

  void it('writes a stream answer, and an error answer with only the request fields', () => {
    const ok = stream.responseDeserialize(
      encodeModelStreamInferResponse({ error_message: '', infer_response: RESPONSE }),
    ) as any;
    assert.equal(ok.error_message, '');
    assert.equal(ok.infer_response.raw_output_contents.length, 2);
    const failed = stream.responseDeserialize(
      encodeModelStreamInferResponse({
        error_message: 'bad shape',
        infer_response: { model_name: 'mlp', model_version: '', id: '7' },
      }),
    ) as any;
    assert.equal(failed.error_message, 'bad shape');
    assert.equal(failed.infer_response.id, '7');
    assert.deepEqual(failed.infer_response.outputs, []);
  });
});
