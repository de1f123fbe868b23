// A large JSON output printed in pieces (tensor-json-text.ts, encode-infer-response.ts) is, byte
// for byte, the text printed whole: random tensors of every fixed-size datatype, NaN, ±Infinity
// and -0 included, cut at random piece sizes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { encodeInferResponse } from '../../../src/http/encode-infer-response.js';
import { tensorJsonPieces, tensorJsonText } from '../../../src/http/tensor-json-text.js';
import { MOVE_MIN_BYTES } from '../../../src/memory/movable-buffers.js';
import { DATATYPE_TABLE, DATATYPES, type Datatype } from '../../../src/tensor/datatypes.js';

const FIXED = DATATYPES.filter((d) => DATATYPE_TABLE[d].byteSize > 0);

/** Random bytes, with float datatypes salted with the values that print specially. */
function tensorBytes(datatype: Datatype, count: number, seed: number): Uint8Array {
  const size = DATATYPE_TABLE[datatype].byteSize;
  const bytes = new Uint8Array(count * size);
  let x = seed | 1;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  if (datatype === 'FP32' || datatype === 'FP64') {
    const v = datatype === 'FP32' ? new Float32Array(bytes.buffer) : new Float64Array(bytes.buffer);
    const special = [NaN, Infinity, -Infinity, -0, 0.1, 1e21, 5e-324];
    for (let i = 0; i < v.length; i += 7) v[i] = special[(i / 7) % special.length] as number;
  }
  return bytes;
}

void test('property: pieces join to the whole text, for every fixed-size datatype', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...FIXED),
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer(),
      (datatype, count, perPiece, seed) => {
        const bytes = tensorBytes(datatype, count, seed);
        const pieces = tensorJsonPieces(bytes, datatype, count, perPiece);
        assert.equal([...pieces].join(''), tensorJsonText(bytes, datatype, count));
      },
    ),
    { numRuns: 500 },
  );
});

void test('a large JSON output is answered in byte chunks that read as the whole document', () => {
  for (const datatype of ['FP32', 'INT64', 'BOOL'] as const) {
    const count = MOVE_MIN_BYTES / DATATYPE_TABLE[datatype].byteSize + 3;
    const data = tensorBytes(datatype, count, 7);
    const small = {
      name: 's',
      datatype: 'INT32',
      shape: [1],
      data: new Uint8Array(4),
      binary: false,
    } as const;
    const big = { name: 'big', datatype, shape: [1, count], data, binary: false };
    const encoded = encodeInferResponse({
      model_name: 'm',
      model_version: '1',
      id: 'r',
      outputs: [small, big],
    });
    assert.equal(encoded.kind, 'json');
    assert.ok(Array.isArray(encoded.body) && encoded.body.length > 2, 'in chunks');
    const text = Buffer.concat(encoded.body as Uint8Array[]).toString('utf8');
    const expected =
      '{"id":"r","model_name":"m","model_version":"1","outputs":[' +
      '{"name":"s","datatype":"INT32","shape":[1],"data":[0]},' +
      `{"name":"big","datatype":"${datatype}","shape":[1,${count}],"data":${tensorJsonText(data, datatype, count)}}]}`;
    assert.equal(text, expected);
  }
});
