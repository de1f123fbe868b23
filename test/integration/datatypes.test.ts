// Every datatype ONNX Runtime can take, end to end through identity models: JSON in -> JSON out,
// and binary in -> binary out, bit for bit. (BF16 has no ORT tensor type; its codec is unit-tested.)

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE_REPOSITORY } from '../helpers/temp-repository.js';
import { DATATYPE_CASES as CASES } from '../helpers/datatype-cases.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

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
