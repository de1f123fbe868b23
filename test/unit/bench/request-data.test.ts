// What requests carry: resolving the model's dims with --shape and -b, the input data (zero,
// seeded random, perf_analyzer's JSON file) and the KServe JSON and binary bodies built from it.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { generateInputSet, inputSetsFromFile } from '../../../bench/model/input-data.js';
import {
  resolveInputs,
  signatureFromMetadata,
  type ModelSignature,
} from '../../../bench/model/model-signature.js';
import {
  binaryRequestBody,
  jsonRequestBody,
  tensorBytes,
} from '../../../bench/model/request-body.js';
import { tempDirSync } from '../../helpers/temp-dir.js';

const SIMPLE: ModelSignature = {
  name: 'simple',
  maxBatchSize: 8,
  inputs: [
    { name: 'INPUT0', datatype: 'INT32', dims: [16] },
    { name: 'INPUT1', datatype: 'INT32', dims: [16] },
  ],
  outputs: [{ name: 'OUTPUT0', datatype: 'INT32', dims: [16] }],
  sequenceBatching: false,
};

void describe('signatureFromMetadata', () => {
  void it('drops the batch dimension when the config says the model batches', () => {
    const sig = signatureFromMetadata(
      {
        name: 'mlp',
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 784] }],
        outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [-1, 10] }],
      },
      { max_batch_size: 128 },
    );
    assert.equal(sig.maxBatchSize, 128);
    assert.deepEqual(sig.inputs, [{ name: 'INPUT0', datatype: 'FP32', dims: [784] }]);
  });

  void it('keeps every dim of a model that does not batch', () => {
    const sig = signatureFromMetadata(
      { name: 'm', inputs: [{ name: 'X', datatype: 'FP32', shape: [-1, 4] }], outputs: [] },
      { max_batch_size: 0 },
    );
    assert.deepEqual(sig.inputs[0]?.dims, [-1, 4]);
  });
});

void describe('resolveInputs', () => {
  void it('puts the batch size in front of each input', () => {
    const inputs = resolveInputs(SIMPLE, {}, 4);
    assert.deepEqual(
      inputs.map((i) => i.shape),
      [
        [4, 16],
        [4, 16],
      ],
    );
    assert.equal(inputs[0]?.rowElements, 16);
  });

  void it('fills variable dims from --shape and refuses what does not fit', () => {
    const sig: ModelSignature = {
      ...SIMPLE,
      inputs: [{ name: 'X', datatype: 'FP32', dims: [-1, 3] }],
    };
    assert.deepEqual(resolveInputs(sig, { X: [5, 3] }, 2)[0]?.shape, [2, 5, 3]);
    assert.throws(
      () => resolveInputs(sig, {}, 1),
      /input X has variable dims \[-1,3\]: give --shape X:N,3/,
    );
    assert.throws(
      () => resolveInputs(sig, { X: [5, 4] }, 1),
      /--shape X:5,4 does not fit the model's dims \[-1,3\]/,
    );
    assert.throws(
      () => resolveInputs(sig, { Y: [1] }, 1),
      /--shape Y: the model has no such input \(inputs: X\)/,
    );
  });

  void it('enforces max_batch_size', () => {
    assert.throws(
      () => resolveInputs(SIMPLE, {}, 9),
      /-b 9 is over model "simple"'s max_batch_size 8/,
    );
    assert.throws(
      () => resolveInputs({ ...SIMPLE, maxBatchSize: 0 }, {}, 2),
      /does not batch \(max_batch_size 0\): -b must be 1, got 2/,
    );
  });
});

void describe('input data', () => {
  const inputs = resolveInputs(SIMPLE, {}, 2);

  void it('generates zeros, and seeded random values that repeat per seed', () => {
    const zero = generateInputSet('zero', inputs, { batchSize: 2, seed: 1, stringLength: 4 });
    assert.ok(
      zero.every((t) => t.elements.length === 32 && (t.elements as number[]).every((e) => e === 0)),
    );
    const a = generateInputSet('random', inputs, { batchSize: 2, seed: 9, stringLength: 4 });
    const b = generateInputSet('random', inputs, { batchSize: 2, seed: 9, stringLength: 4 });
    assert.deepEqual(a, b);
    assert.ok((a[0]?.elements as number[]).every((e) => Number.isInteger(e) && e >= 0 && e < 100));
    assert.notDeepEqual(a[0]?.elements, a[1]?.elements);
  });

  void it('reads a perf_analyzer data file, one batch row per entry, wrapping', () => {
    const dir = tempDirSync('infernode-bench-data-');
    const file = path.join(dir, 'data.json');
    const row = (k: number): number[] => Array.from({ length: 16 }, () => k);
    writeFileSync(
      file,
      JSON.stringify({
        data: [
          { INPUT0: row(1), INPUT1: { content: row(10), shape: [16] } },
          { INPUT0: [row(2).slice(0, 8), row(2).slice(8)], INPUT1: row(20) },
          { INPUT0: row(3), INPUT1: row(30) },
        ],
      }),
    );
    const sets = inputSetsFromFile(file, inputs, 2, true);
    assert.equal(sets.length, 3);
    assert.deepEqual(sets[0]?.[0]?.elements, [...row(1), ...row(2)]);
    assert.deepEqual(sets[2]?.[1]?.elements, [...row(30), ...row(10)]);
    assert.deepEqual(sets[0]?.[0]?.shape, [2, 16]);

    writeFileSync(file, JSON.stringify({ data: [{ INPUT0: row(1) }] }));
    assert.throws(() => inputSetsFromFile(file, inputs, 2, true), /data\[0\] has no "INPUT1"/);
    writeFileSync(file, JSON.stringify({ data: [{ INPUT0: [1, 2], INPUT1: row(1) }] }));
    assert.throws(
      () => inputSetsFromFile(file, inputs, 2, true),
      /expected 16 elements for shape \[16\], got 2/,
    );
    writeFileSync(
      file,
      JSON.stringify({ data: [{ INPUT0: row(1), INPUT1: { content: row(1), shape: [4, 4] } }] }),
    );
    assert.throws(
      () => inputSetsFromFile(file, inputs, 2, true),
      /shape \[4,4\] differs from the row shape \[16\]/,
    );
  });
});

void describe('request bodies', () => {
  const set = [
    { name: 'A', datatype: 'FP32' as const, shape: [1, 2], elements: [0.5, -2] },
    { name: 'B', datatype: 'BYTES' as const, shape: [1], elements: ['hé'] },
    { name: 'C', datatype: 'BOOL' as const, shape: [2], elements: [true, false] },
    { name: 'D', datatype: 'INT64' as const, shape: [1], elements: [-3] },
  ];

  void it('encodes tensors as little-endian bytes (BYTES length-prefixed)', () => {
    assert.deepEqual(
      [...tensorBytes(set[0]!)],
      [...new Uint8Array(Float32Array.of(0.5, -2).buffer)],
    );
    assert.deepEqual([...tensorBytes(set[1]!)], [3, 0, 0, 0, 0x68, 0xc3, 0xa9]);
    assert.deepEqual([...tensorBytes(set[2]!)], [1, 0]);
    assert.deepEqual([...tensorBytes(set[3]!)], [...new Uint8Array(BigInt64Array.of(-3n).buffer)]);
  });

  void it('writes KServe JSON', () => {
    const r = jsonRequestBody(set);
    assert.equal(r.contentType, 'application/json');
    assert.equal(r.inferenceHeaderLength, undefined);
    assert.deepEqual(JSON.parse(Buffer.from(r.body).toString('utf8')), {
      inputs: [
        { name: 'A', datatype: 'FP32', shape: [1, 2], data: [0.5, -2] },
        { name: 'B', datatype: 'BYTES', shape: [1], data: ['hé'] },
        { name: 'C', datatype: 'BOOL', shape: [2], data: [true, false] },
        { name: 'D', datatype: 'INT64', shape: [1], data: [-3] },
      ],
    });
  });

  void it('writes the binary tensor extension: JSON header of the stated length, then the bytes', () => {
    const r = binaryRequestBody(set);
    const body = Buffer.from(r.body);
    const headerLength = r.inferenceHeaderLength as number;
    const header = JSON.parse(body.toString('utf8', 0, headerLength)) as {
      inputs: { name: string; parameters: { binary_data_size: number } }[];
      parameters: Record<string, unknown>;
    };
    assert.deepEqual(header.parameters, { binary_data_output: true });
    assert.deepEqual(
      header.inputs.map((i) => i.parameters.binary_data_size),
      [8, 7, 2, 8],
    );
    assert.equal(body.length, headerLength + 8 + 7 + 2 + 8);
    assert.deepEqual(
      [...body.subarray(headerLength + 8, headerLength + 15)],
      [3, 0, 0, 0, 0x68, 0xc3, 0xa9],
    );
  });
});
