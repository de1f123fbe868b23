// Every datatype ONNX Runtime can take, end to end through identity models: JSON in -> JSON out,
// and binary in -> binary out, bit for bit. (BF16 has no ORT tensor type; its codec is unit-tested.)

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE_REPOSITORY } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

interface Case {
  readonly model: string;
  readonly datatype: string;
  readonly json: unknown[];
  readonly bytes: Buffer;
}

const le = <T extends { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }>(a: T) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength);

const CASES: Case[] = [
  {
    model: 'identity_bool',
    datatype: 'BOOL',
    json: [true, false, true, true],
    bytes: Buffer.from([1, 0, 1, 1]),
  },
  {
    model: 'identity_uint8',
    datatype: 'UINT8',
    json: [0, 1, 128, 255],
    bytes: Buffer.from([0, 1, 128, 255]),
  },
  {
    model: 'identity_uint16',
    datatype: 'UINT16',
    json: [0, 1, 40000, 65535],
    bytes: le(Uint16Array.of(0, 1, 40000, 65535)),
  },
  {
    model: 'identity_uint32',
    datatype: 'UINT32',
    json: [0, 1, 3e9, 4294967295],
    bytes: le(Uint32Array.of(0, 1, 3e9, 4294967295)),
  },
  {
    model: 'identity_uint64',
    datatype: 'UINT64',
    json: [0, 1, 2 ** 40, 2 ** 53 - 1],
    bytes: le(BigUint64Array.of(0n, 1n, 2n ** 40n, 2n ** 53n - 1n)),
  },
  {
    model: 'identity_int8',
    datatype: 'INT8',
    json: [-128, -1, 0, 127],
    bytes: le(Int8Array.of(-128, -1, 0, 127)),
  },
  {
    model: 'identity_int16',
    datatype: 'INT16',
    json: [-32768, -1, 0, 32767],
    bytes: le(Int16Array.of(-32768, -1, 0, 32767)),
  },
  {
    model: 'identity_int32',
    datatype: 'INT32',
    json: [-2147483648, -1, 0, 2147483647],
    bytes: le(Int32Array.of(-2147483648, -1, 0, 2147483647)),
  },
  {
    model: 'identity_int64',
    datatype: 'INT64',
    json: [-(2 ** 53) + 1, -1, 0, 2 ** 53 - 1],
    bytes: le(BigInt64Array.of(-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n)),
  },
  {
    model: 'identity_fp16',
    datatype: 'FP16',
    json: [0, -2, 0.5, 65504],
    bytes: le(Uint16Array.of(0x0000, 0x8000, 0x7c00, 0x0001)),
  },
  {
    model: 'identity_fp32',
    datatype: 'FP32',
    json: [0, -1.5, 3.25, Math.fround(1e30)],
    bytes: le(Float32Array.of(-0, Math.PI, -Infinity, 1e-40)),
  },
  {
    model: 'identity_fp64',
    datatype: 'FP64',
    json: [0, -1.5, Math.PI, 1e300],
    bytes: le(Float64Array.of(-0, Math.E, 1e-310, -1e308)),
  },
];

void describe('every datatype round-trips through identity models', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ modelRepositories: [FIXTURE_REPOSITORY], strictReadiness: false });
  });
  after(async () => {
    await t.close();
  });

  for (const c of CASES) {
    void it(`${c.datatype} over JSON`, async () => {
      const r = await postJson(`${t.base}/v2/models/${c.model}/infer`, {
        inputs: [{ name: 'INPUT0', datatype: c.datatype, shape: [1, c.json.length], data: c.json }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const out = r.json.outputs[0];
      assert.equal(out.datatype, c.datatype);
      assert.deepEqual(out.shape, [1, c.json.length]);
      assert.deepEqual(out.data, c.json);
    });

    void it(`${c.datatype} over the binary extension, bit for bit`, async () => {
      const elements = 4;
      const header = Buffer.from(
        JSON.stringify({
          inputs: [
            {
              name: 'INPUT0',
              datatype: c.datatype,
              shape: [1, elements],
              parameters: { binary_data_size: c.bytes.length },
            },
          ],
          parameters: { binary_data_output: true },
        }),
      );
      const res = await fetch(`${t.base}/v2/models/${c.model}/infer`, {
        method: 'POST',
        headers: { 'inference-header-content-length': String(header.length) },
        body: Buffer.concat([header, c.bytes]),
      });
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200, body.toString());
      assert.equal(res.headers.get('content-type'), 'application/octet-stream');
      const hlen = Number(res.headers.get('inference-header-content-length'));
      const json = JSON.parse(body.subarray(0, hlen).toString());
      assert.equal(json.outputs[0].parameters.binary_data_size, c.bytes.length);
      assert.deepEqual(body.subarray(hlen), c.bytes);
    });
  }

  void it('BYTES over JSON and binary, including non-ASCII and empty elements', async () => {
    const strings = ['a', '', 'ünïcödé', '😀'.repeat(100)];
    const r = await postJson(`${t.base}/v2/models/identity_bytes/infer`, {
      inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 4], data: strings }],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.outputs[0].data, strings);

    const payload = Buffer.concat(
      strings.map((s) => {
        const b = Buffer.from(s);
        const len = Buffer.alloc(4);
        len.writeUInt32LE(b.length);
        return Buffer.concat([len, b]);
      }),
    );
    const header = Buffer.from(
      JSON.stringify({
        inputs: [
          {
            name: 'INPUT0',
            datatype: 'BYTES',
            shape: [1, 4],
            parameters: { binary_data_size: payload.length },
          },
        ],
        outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
      }),
    );
    const res = await fetch(`${t.base}/v2/models/identity_bytes/infer`, {
      method: 'POST',
      headers: { 'inference-header-content-length': String(header.length) },
      body: Buffer.concat([header, payload]),
    });
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, 200, body.toString());
    const hlen = Number(res.headers.get('inference-header-content-length'));
    assert.deepEqual(body.subarray(hlen), payload);
  });

  void it('refuses BYTES elements holding NUL (onnxruntime-node would truncate them)', async () => {
    const r = await postJson(`${t.base}/v2/models/identity_bytes/infer`, {
      inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 2], data: ['ok', 'a\u0000b'] }],
    });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /element 1 contains a NUL byte/);
  });

  void it('a zero-size batch dimension gives a valid empty output', async () => {
    const r = await postJson(`${t.base}/v2/models/identity_fp32/infer`, {
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 0], data: [] }],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.outputs[0].shape, [1, 0]);
    assert.deepEqual(r.json.outputs[0].data, []);
  });
});
