// Large requests end to end (real server, real workers): past MOVE_MIN_BYTES a lone request's body
// or decoded tensor moves to its worker and ORT's outputs move back (src/memory/movable-buffers.ts),
// so these check the answers on that path, for each front end, binary and JSON, datatypes of every
// alignment, and that small requests still take the copy path correctly afterwards.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MOVE_MIN_BYTES } from '../../src/memory/movable-buffers.js';
import path from 'node:path';
import { TEST_FIXTURES } from '../helpers/paths.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const VARIANTS = [
  { frontEnd: 'node', disableSabTensors: false },
  { frontEnd: 'auto', disableSabTensors: false },
  { frontEnd: 'node', disableSabTensors: true },
] as const;

/** A binary-extension body: a JSON header (padded to `headerPad` extra spaces), then the bytes. */
function binaryBody(
  inputs: readonly { name: string; datatype: string; shape: number[]; bytes: Uint8Array }[],
  headerPad: number,
): { body: Buffer; headerLength: number } {
  const header = Buffer.from(
    JSON.stringify({
      inputs: inputs.map((i) => ({
        name: i.name,
        datatype: i.datatype,
        shape: i.shape,
        parameters: { binary_data_size: i.bytes.byteLength },
      })),
      parameters: { binary_data_output: true },
    }) + ' '.repeat(headerPad),
  );
  return {
    body: Buffer.concat([header, ...inputs.map((i) => i.bytes)]),
    headerLength: header.length,
  };
}

async function postBinary(
  url: string,
  body: Buffer,
  headerLength: number,
): Promise<{ status: number; header: any; data: Buffer }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': String(headerLength),
    },
    body,
  });
  const all = Buffer.from(await res.arrayBuffer());
  const n = Number(res.headers.get('inference-header-content-length') ?? all.length);
  return {
    status: res.status,
    header: JSON.parse(all.subarray(0, n).toString()),
    data: all.subarray(n),
  };
}

function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

for (const { frontEnd, disableSabTensors } of VARIANTS) {
  const title = `--http-front-end=${frontEnd}${disableSabTensors ? ' --disable-sab-tensors' : ''}`;
  void describe(`large requests (${title})`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({
        modelRepositories: [path.join(TEST_FIXTURES, 'repository')],
        modelControlMode: 'explicit',
        loadModels: ['identity_fp32', 'identity_fp64', 'identity_uint8', 'identity_int16'],
        httpFrontEnd: frontEnd,
        disableSabTensors,
      });
    });
    after(async () => {
      await t.close();
    });

    for (const [model, datatype, size] of [
      ['identity_fp32', 'FP32', 4],
      ['identity_fp64', 'FP64', 8],
      ['identity_uint8', 'UINT8', 1],
      ['identity_int16', 'INT16', 2],
    ] as const) {
      for (const headerPad of [0, 1, 3, 61]) {
        void it(`${model}: binary in and out, ${MOVE_MIN_BYTES * 2} bytes, header + ${headerPad}`, async () => {
          const elements = (MOVE_MIN_BYTES * 2) / size + 3;
          const bytes = randomBytes(elements * size, elements + headerPad);
          if (datatype === 'FP32' || datatype === 'FP64') {
            // Finite values only: a NaN's payload need not survive the identity bit for bit.
            const v =
              datatype === 'FP32' ? new Float32Array(bytes.buffer) : new Float64Array(bytes.buffer);
            for (let i = 0; i < v.length; i++) v[i] = (i % 1000) / 7 - 50;
          }
          const { body, headerLength } = binaryBody(
            [{ name: 'INPUT0', datatype, shape: [1, elements], bytes }],
            headerPad,
          );
          const r = await postBinary(`${t.base}/v2/models/${model}/infer`, body, headerLength);
          assert.equal(r.status, 200, JSON.stringify(r.header));
          assert.deepEqual(r.header.outputs[0].shape, [1, elements]);
          assert.ok(Buffer.from(bytes).equals(r.data), 'the same bytes back');
        });
      }
    }

    void it('a large JSON request and a JSON answer', async () => {
      const elements = MOVE_MIN_BYTES / 4 + 5;
      const data = Array.from({ length: elements }, (_, i) => (i % 977) * 0.25 - 100);
      const r = await postJson(`${t.base}/v2/models/identity_fp32/infer`, {
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, elements], data }],
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.outputs[0].data, data);
    });

    void it('small requests after large ones still take the copy path right', async () => {
      for (let k = 0; k < 3; k++) {
        const data = [1.5, -2, k];
        const r = await postJson(`${t.base}/v2/models/identity_fp32/infer`, {
          inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 3], data }],
        });
        assert.equal(r.status, 200);
        assert.deepEqual(r.json.outputs[0].data, data);
      }
    });
  });
}
