// Response encoding, and the round trips through it: JSON data -> writeJsonTensor -> JSON response
// -> parse -> the same values; raw bytes -> binary response -> the same bytes. Every datatype.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DATATYPES, type Datatype } from '../../../src/tensor/datatypes.js';
import { encodeBytesTensor } from '../../../src/tensor/bytes-tensor.js';
import { encodeInferResponse } from '../../../src/http/encode-infer-response.js';
import type { InferenceResponse, ResponseOutput } from '../../../src/protocol/inference-request.js';
import { jsonTensorByteLength, writeJsonTensor } from '../../../src/protocol/json-tensor.js';
import { parseJsonBytes } from '../../../src/http/json-text.js';
import { bytesOf, throwsCode, utf8 } from '../protocol/expect-error.js';

const response = (
  outputs: ResponseOutput[],
  extra: Partial<InferenceResponse> = {},
): InferenceResponse => ({
  model_name: 'm',
  model_version: '3',
  outputs,
  ...extra,
});

function jsonBody(resp: InferenceResponse): string {
  const r = encodeInferResponse(resp);
  assert.equal(r.kind, 'json');
  assert.equal(typeof r.body, 'string');
  return r.body as string;
}

interface ParsedOutput {
  name: string;
  datatype: string;
  shape: number[];
  data?: unknown[];
  parameters?: Record<string, unknown>;
}

/** Splits a binary response into its parsed JSON header and the bytes that follow. */
function splitBinary(resp: InferenceResponse): {
  doc: { outputs: ParsedOutput[] };
  rest: Uint8Array;
} {
  const r = encodeInferResponse(resp);
  assert.equal(r.kind, 'binary');
  assert.ok(Array.isArray(r.body));
  const chunks = r.body as readonly Uint8Array[];
  const all = Buffer.concat(chunks.map((c) => Buffer.from(c)));
  const n = r.headerLength;
  assert.equal(n, chunks[0]?.length);
  return {
    doc: parseJsonBytes(all.subarray(0, n)) as { outputs: ParsedOutput[] },
    rest: all.subarray(n),
  };
}

/** JSON values per datatype, chosen to be exactly representable so they come back unchanged. */
const VALUES: Record<Datatype, unknown[]> = {
  BOOL: [true, false, false, true],
  UINT8: [0, 1, 128, 255],
  UINT16: [0, 65535, 7, 300],
  UINT32: [0, 4294967295, 1, 2 ** 31],
  UINT64: [0, 2 ** 53 - 1, 1, 2 ** 40],
  INT8: [-128, 127, 0, -1],
  INT16: [-32768, 32767, 0, -300],
  INT32: [-(2 ** 31), 2 ** 31 - 1, 0, -7],
  INT64: [-(2 ** 53 - 1), 2 ** 53 - 1, 0, -(2 ** 32) - 1],
  FP16: [0, -0, 2 ** -24, 65504, -Infinity, NaN, 1.5, 2 ** -14 - 2 ** -24],
  FP32: [Math.fround(0.1), -0, Infinity, NaN, Math.fround(1e-40), 3.4028234663852886e38, 1, -2.5],
  FP64: [0.1, -0, -Infinity, NaN, 5e-324, Number.MAX_VALUE, 1, -2.5],
  BF16: [0, -0, 2 ** -133, 3.3895313892515355e38, Infinity, NaN, 1.5, -2],
  BYTES: ['', 'a\u0000b', 'héllo wörld', '😀', '\u0000'],
};

void describe('round trips, every datatype', () => {
  for (const datatype of DATATYPES) {
    const values = VALUES[datatype];
    void it(`${datatype}: JSON data -> bytes -> JSON response -> the same values`, () => {
      const shape = [1, values.length];
      const n = jsonTensorByteLength([values], datatype, values.length);
      const bytes = new Uint8Array(n);
      writeJsonTensor(values, datatype, values.length, bytes);
      const text = jsonBody(
        response([{ name: 'OUT', datatype, shape, data: bytes, binary: false }]),
      );
      const doc = parseJsonBytes(utf8(text)) as { outputs: ParsedOutput[] };
      const out = doc.outputs[0] as ParsedOutput;
      assert.deepEqual([out.name, out.datatype, out.shape], ['OUT', datatype, shape]);
      // deepEqual uses Object.is: NaN equals NaN and -0 differs from 0, so signs of zero count.
      assert.deepEqual(out.data, values);
      // And the parsed values write back to the very same bytes.
      const again = new Uint8Array(n);
      writeJsonTensor(out.data, datatype, values.length, again);
      assert.deepEqual(again, bytes);
    });

    void it(`${datatype}: raw bytes -> binary response -> the same bytes, not copied`, () => {
      const bytes = new Uint8Array(jsonTensorByteLength(values, datatype, values.length));
      writeJsonTensor(values, datatype, values.length, bytes);
      const output: ResponseOutput = {
        name: 'OUT',
        datatype,
        shape: [values.length],
        data: bytes,
        binary: true,
      };
      const r = encodeInferResponse(response([output]));
      assert.equal(
        (r.body as readonly Uint8Array[])[1],
        bytes,
        'the output view itself is a chunk',
      );
      const { doc, rest } = splitBinary(response([output]));
      assert.deepEqual(doc.outputs[0], {
        name: 'OUT',
        datatype,
        shape: [values.length],
        parameters: { binary_data_size: bytes.length },
      });
      assert.deepEqual(new Uint8Array(rest), bytes);
    });
  }
});

void describe('JSON output text', () => {
  const one = (datatype: Datatype, data: Uint8Array, count: number): string => {
    const text = jsonBody(response([{ name: 'O', datatype, shape: [count], data, binary: false }]));
    const m = /"data":(\[.*\])\}\]\}$/s.exec(text);
    assert.ok(m, text);
    return m[1] as string;
  };

  void it('prints INT64/UINT64 extremes with every digit', () => {
    const i64 = new BigInt64Array([2n ** 63n - 1n, -(2n ** 63n), -1n]);
    assert.equal(one('INT64', bytesOf(i64), 3), '[9223372036854775807,-9223372036854775808,-1]');
    const u64 = new BigUint64Array([2n ** 64n - 1n, 2n ** 53n + 1n]);
    assert.equal(one('UINT64', bytesOf(u64), 2), '[18446744073709551615,9007199254740993]');
  });

  void it('prints NaN and infinities as the NaN / Infinity / -Infinity tokens, and keeps -0', () => {
    const f = new Float32Array([NaN, Infinity, -Infinity, -0, 0.5]);
    assert.equal(one('FP32', bytesOf(f), 5), '[NaN,Infinity,-Infinity,-0,0.5]');
    assert.equal(one('FP32', bytesOf(new Float32Array([0.1, 2])), 2), '[0.10000000149011612,2]');
  });

  void it('prints BOOL as true/false (any non-zero byte is true)', () => {
    assert.equal(one('BOOL', new Uint8Array([0, 1, 2]), 3), '[false,true,true]');
  });

  void it('prints BYTES as strings; invalid UTF-8 becomes U+FFFD', () => {
    const data = encodeBytesTensor([new Uint8Array([0x61, 0xff, 0x62]), 'q"\\']);
    assert.equal(one('BYTES', data, 2), '["a\uFFFDb","q\\"\\\\"]');
  });

  void it('refuses output bytes that do not match the shape (a server bug)', () => {
    const bad = {
      name: 'O',
      datatype: 'FP32',
      shape: [2, 2],
      data: new Uint8Array(12),
      binary: false,
    } as const;
    throwsCode(
      () => encodeInferResponse(response([bad])),
      'INTERNAL',
      'output O: expected 16 bytes for shape [2,2] FP32, got 12',
    );
    throwsCode(
      () => encodeInferResponse(response([{ ...bad, binary: true }])),
      'INTERNAL',
      /expected 16 bytes/,
    );
    const bytes = {
      name: 'S',
      datatype: 'BYTES',
      shape: [3],
      data: encodeBytesTensor(['a']),
      binary: false,
    } as const;
    throwsCode(
      () => encodeInferResponse(response([bytes])),
      'INTERNAL',
      'output S: expected 3 BYTES elements for shape [3], got 1',
    );
  });
});

void describe('response document', () => {
  void it('writes id first when present, then model name and version, parameters and outputs', () => {
    const data = bytesOf(new Int32Array([1, 2]));
    const text = jsonBody(
      response(
        [{ name: 'O', datatype: 'INT32', shape: [2], data, binary: false, parameters: { k: 'v' } }],
        {
          id: 'req-"1"',
          parameters: { sequence_id: 4, flag: true },
        },
      ),
    );
    assert.equal(
      text,
      '{"id":"req-\\"1\\"","model_name":"m","model_version":"3","parameters":{"sequence_id":4,"flag":true},' +
        '"outputs":[{"name":"O","datatype":"INT32","shape":[2],"parameters":{"k":"v"},"data":[1,2]}]}',
    );
    assert.equal(jsonBody(response([])), '{"model_name":"m","model_version":"3","outputs":[]}');
  });

  void it('mixes JSON and binary outputs; binary bytes follow the header in output order', () => {
    const a = bytesOf(new Float32Array([1, 2]));
    const b = new Uint8Array([9]);
    const resp = response([
      { name: 'A', datatype: 'FP32', shape: [2], data: a, binary: true, parameters: { note: 'x' } },
      { name: 'J', datatype: 'INT8', shape: [1], data: new Uint8Array([255]), binary: false },
      { name: 'E', datatype: 'FP32', shape: [0], data: new Uint8Array(0), binary: true },
      { name: 'B', datatype: 'UINT8', shape: [1], data: b, binary: true },
    ]);
    const r = encodeInferResponse(resp);
    assert.deepEqual(
      (r.body as readonly Uint8Array[]).slice(1),
      [a, b],
      'empty outputs add no chunk',
    );
    const { doc, rest } = splitBinary(resp);
    assert.deepEqual(
      doc.outputs.map((o) => [o.name, o.parameters, o.data]),
      [
        ['A', { note: 'x', binary_data_size: 8 }, undefined],
        ['J', undefined, [-1]],
        ['E', { binary_data_size: 0 }, undefined],
        ['B', { binary_data_size: 1 }, undefined],
      ],
    );
    assert.deepEqual(new Uint8Array(rest), new Uint8Array([...a, 9]));
  });

  void it('counts the header length in bytes, not characters', () => {
    const resp = response([
      { name: 'ü😀', datatype: 'UINT8', shape: [1], data: new Uint8Array([1]), binary: true },
    ]);
    const r = encodeInferResponse(resp);
    assert.equal(r.kind, 'binary');
    const header = r.body[0] as Uint8Array;
    assert.equal(r.headerLength, header.length);
    assert.ok(header.length > Buffer.from(header).toString('utf8').length);
  });
});
