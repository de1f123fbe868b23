// Tensor bytes across the thread boundary: one transferred buffer per message, shared memory passed
// as it is, nothing lost or reordered, and parameters made null-prototype again on arrival.

import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { describe, it } from 'node:test';
import { packRequest, packResponse, unpackRequest } from '../../../src/cluster/wire-tensors.js';
import type { DecodedRequest, InferenceResponse } from '../../../src/protocol/inference-request.js';

/** Posts `value` through a real MessageChannel (structured clone, transfer) and returns the copy. */
async function throughChannel<T>(value: T, transfer: ArrayBuffer[]): Promise<T> {
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<T>((resolve) => port2.once('message', resolve));
  port1.postMessage(value, transfer);
  const out = await received;
  port1.close();
  return out;
}

void describe('wire tensors', () => {
  void it('packs every input view of one body into one transferred buffer', async () => {
    const body = new Uint8Array(1000).map((_, i) => i & 0xff);
    const request: DecodedRequest = {
      id: 'r1',
      parameters: {},
      inputs: [
        {
          name: 'A',
          datatype: 'UINT8',
          shape: [4],
          parameters: {},
          data: { kind: 'raw', bytes: body.subarray(10, 14) },
        },
        {
          name: 'B',
          datatype: 'FP32',
          shape: [2],
          parameters: {},
          data: { kind: 'typed', datatype: 'FP32', count: 2, bytes: body.subarray(100, 108) },
        },
        {
          name: 'C',
          datatype: 'BYTES',
          shape: [1],
          parameters: {},
          data: { kind: 'json', values: ['hi'] },
        },
      ],
    };
    const packed = packRequest(request);
    assert.equal(packed.transfer.length, 1);
    assert.equal(packed.transfer[0]?.byteLength, 12, 'only the inputs, not the whole body');
    const arrived = unpackRequest(await throughChannel(packed.value, packed.transfer));
    assert.ok(!('rawBinary' in arrived));
    const [a, b, c] = arrived.inputs;
    assert.deepEqual(a?.data.kind === 'raw' && [...a.data.bytes], [10, 11, 12, 13]);
    assert.deepEqual(
      b?.data.kind === 'typed' && [...b.data.bytes],
      [100, 101, 102, 103, 104, 105, 106, 107],
    );
    assert.deepEqual(c?.data, { kind: 'json', values: ['hi'] });
    assert.equal(packed.transfer[0]?.byteLength, 0, 'the sender gave the buffer up');
    assert.equal(body[10], 10, 'the body itself is untouched');
  });

  void it('packs a raw binary request', async () => {
    const packed = packRequest({ rawBinary: new Uint8Array([1, 2, 3]) });
    const arrived = unpackRequest(await throughChannel(packed.value, packed.transfer));
    assert.ok('rawBinary' in arrived);
    assert.deepEqual([...arrived.rawBinary], [1, 2, 3]);
  });

  void it('gives parameters back their null prototype, frozen', async () => {
    const params = JSON.parse('{"__proto__": {"x": 1}, "sequence_id": 7}') as Record<string, never>;
    const request: DecodedRequest = {
      parameters: params,
      inputs: [
        {
          name: 'A',
          datatype: 'INT32',
          shape: [0],
          parameters: {},
          data: { kind: 'json', values: [] },
        },
      ],
      outputs: [{ name: 'O', parameters: { binary_data: true } }],
    };
    const packed = packRequest(request);
    const arrived = unpackRequest(await throughChannel(packed.value, packed.transfer));
    assert.ok(!('rawBinary' in arrived));
    for (const p of [
      arrived.parameters,
      arrived.inputs[0]?.parameters,
      arrived.outputs?.[0]?.parameters,
    ]) {
      assert.equal(Object.getPrototypeOf(p), null);
      assert.ok(Object.isFrozen(p));
    }
    assert.equal(arrived.parameters['sequence_id'], 7);
    assert.equal((arrived.parameters as Record<string, unknown>)['constructor'], undefined);
    assert.equal(arrived.outputs?.[0]?.parameters['binary_data'], true);
  });

  void it('passes outputs in shared memory as they are and packs the rest', async () => {
    const shared = new Uint8Array(new SharedArrayBuffer(16)).fill(7);
    const plain = new Uint8Array(64).fill(9);
    const response: InferenceResponse = {
      model_name: 'm',
      model_version: '1',
      outputs: [
        { name: 'S', datatype: 'UINT8', shape: [8], data: shared.subarray(0, 8), binary: true },
        { name: 'P', datatype: 'UINT8', shape: [4], data: plain.subarray(4, 8), binary: false },
      ],
    };
    const packed = packResponse(response);
    assert.equal(packed.transfer.length, 1);
    assert.equal(packed.transfer[0]?.byteLength, 4);
    const arrived = await throughChannel(packed.value, packed.transfer);
    const [s, p] = arrived.outputs;
    assert.ok(s?.data.buffer instanceof SharedArrayBuffer, 'still shared, not copied');
    shared[0] = 42;
    assert.equal(s?.data[0], 42, 'the same memory');
    assert.deepEqual([...(p?.data ?? [])], [9, 9, 9, 9]);
    assert.equal(plain.byteLength, 64, 'the source output is not transferred away');
  });
});
