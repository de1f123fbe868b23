// readModelIO against real ONNX files run through onnxruntime-node: names, types and how ORT 1.30
// reports fixed, symbolic and unknown dims.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import '../../helpers/ort-telemetry-off.js';
import { readModelIO } from '../../../src/config/read-model-io.js';
import { InferenceServerError } from '../../../src/errors.js';
import { ELEM, encodeModel, node, tensorValue } from '../../../scripts/onnx/graph-builder.js';

let dir = '';
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'infernode-read-model-io-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

void test('inputs and outputs in model order, with ORT types and dims as ORT reports them', async () => {
  // An unnamed dynamic dim (neither dim_value nor dim_param) is written by hand; graph-builder only
  // writes named ones.
  const unnamed = {
    name: 'u',
    type: { tensorType: { elemType: ELEM.INT64, shape: { dim: [{}, { dimValue: 2 }] } } },
  };
  const bytes = encodeModel({
    name: 'io',
    inputs: [
      tensorValue('b', ELEM.FLOAT, ['batch', 3]),
      unnamed,
      tensorValue('s', ELEM.STRING, []),
    ],
    outputs: [
      tensorValue('b_out', ELEM.FLOAT, ['batch', 3]),
      tensorValue('u_out', ELEM.INT64, ['n', 2]),
      tensorValue('s_out', ELEM.STRING, []),
    ],
    nodes: [
      node('Identity', ['b'], ['b_out'], 'n1'),
      node('Identity', ['u'], ['u_out'], 'n2'),
      node('Identity', ['s'], ['s_out'], 'n3'),
    ],
  });
  const file = path.join(dir, 'io.onnx');
  await writeFile(file, bytes);
  assert.deepEqual(await readModelIO(file), {
    inputs: [
      { name: 'b', ortType: 'float32', shape: ['batch', 3] },
      { name: 'u', ortType: 'int64', shape: ['', 2] },
      { name: 's', ortType: 'string', shape: [] },
    ],
    outputs: [
      { name: 'b_out', ortType: 'float32', shape: ['batch', 3] },
      { name: 'u_out', ortType: 'int64', shape: ['n', 2] },
      { name: 's_out', ortType: 'string', shape: [] },
    ],
  });
});

void test('a missing or corrupt model file is MODEL_LOAD_FAILED naming the file', async () => {
  const missing = path.join(dir, 'missing.onnx');
  await assert.rejects(readModelIO(missing), (e: unknown) => {
    assert.ok(e instanceof InferenceServerError);
    assert.equal(e.code, 'MODEL_LOAD_FAILED');
    assert.ok(
      e.message.startsWith(`cannot read the inputs and outputs of ${missing}: `),
      e.message,
    );
    return true;
  });
  const corrupt = path.join(dir, 'corrupt.onnx');
  await writeFile(corrupt, 'not a protobuf');
  await assert.rejects(readModelIO(corrupt), { code: 'MODEL_LOAD_FAILED' });
});

void test('a sequence-typed input is UNSUPPORTED, naming the input', async () => {
  const seq = (name: string) => ({
    name,
    type: {
      sequenceType: {
        elemType: { tensorType: { elemType: ELEM.FLOAT, shape: { dim: [{ dimValue: 2 }] } } },
      },
    },
  });
  const file = path.join(dir, 'sequence.onnx');
  await writeFile(
    file,
    encodeModel({
      name: 'seq',
      inputs: [seq('a')],
      outputs: [seq('b')],
      nodes: [node('Identity', ['a'], ['b'], 'n')],
    }),
  );
  await assert.rejects(readModelIO(file), {
    code: 'UNSUPPORTED',
    message: `${file}: model input "a" is not a tensor (a sequence or map); infernode serves tensors only`,
  });
});
