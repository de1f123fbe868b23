// The test-fixture repository: every identity_<dtype> round-trips through onnxruntime-node,
// slow_fp32 runs and has its configured depth, failing_run loads but fails every run, bad_truncated
// fails to load, configs are written.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';
import { DATATYPE_TABLE } from '../../../src/tensor/datatypes.js';
import { pinFloat16ToUint16 } from '../../../src/execution/onnxruntime/float16-compat.js';
import { generateFixtures } from '../../../scripts/generate-models.js';
import { simpleModel } from '../../../scripts/onnx/bundled-models.js';
import {
  DEFAULT_SLOW_LAYERS,
  FAILING_RUN_WIDTH,
  IDENTITY_DATATYPES,
  SLOW_WIDTH,
  TRUNCATED_LENGTH,
  identityFixtureName,
  slowLayers,
  slowLayersFrom,
  slowModel,
} from '../../../scripts/onnx/fixture-models.js';
import type { IdentityDatatype } from '../../../scripts/onnx/fixture-models.js';
import { inputShape, openSession, runOne, tempDir } from './model-dirs.js';

// FP16 data here is raw Uint16 bits, as in the server's workers (see float16-compat.ts).
pinFloat16ToUint16(ort.Tensor);

/** A [2,3] input per datatype, exercising each type's edge values. */
function sampleTensor(d: IdentityDatatype): ort.Tensor {
  const dims = [2, 3];
  switch (d) {
    case 'BOOL':
      return new ort.Tensor('bool', Uint8Array.from([1, 0, 1, 1, 0, 0]), dims);
    case 'UINT8':
      return new ort.Tensor('uint8', Uint8Array.from([0, 1, 127, 128, 254, 255]), dims);
    case 'UINT16':
      return new ort.Tensor(
        'uint16',
        Uint16Array.from([0, 1, 0x7fff, 0x8000, 0xfffe, 0xffff]),
        dims,
      );
    case 'UINT32':
      return new ort.Tensor(
        'uint32',
        Uint32Array.from([0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1]),
        dims,
      );
    case 'UINT64':
      return new ort.Tensor(
        'uint64',
        BigUint64Array.from([0n, 1n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 2n, 2n ** 64n - 1n]),
        dims,
      );
    case 'INT8':
      return new ort.Tensor('int8', Int8Array.from([-128, -1, 0, 1, 126, 127]), dims);
    case 'INT16':
      return new ort.Tensor('int16', Int16Array.from([-32768, -1, 0, 1, 32766, 32767]), dims);
    case 'INT32':
      return new ort.Tensor(
        'int32',
        Int32Array.from([-(2 ** 31), -1, 0, 1, 2 ** 31 - 2, 2 ** 31 - 1]),
        dims,
      );
    case 'INT64':
      return new ort.Tensor(
        'int64',
        BigInt64Array.from([-(2n ** 63n), -1n, 0n, 2n ** 53n + 1n, 2n ** 63n - 2n, 2n ** 63n - 1n]),
        dims,
      );
    case 'FP16':
      // 1.0, -2.0, +inf, a subnormal, a NaN payload, -0: raw bit patterns must survive untouched.
      return new ort.Tensor(
        'float16',
        Uint16Array.from([0x3c00, 0xc000, 0x7c00, 0x0001, 0x7e01, 0x8000]),
        dims,
      );
    case 'FP32':
      return new ort.Tensor(
        'float32',
        Float32Array.from([1.5, -0, Infinity, -3.4e38, 1e-45, Math.PI]),
        dims,
      );
    case 'FP64':
      return new ort.Tensor(
        'float64',
        Float64Array.from([1.5, -0, -Infinity, Number.MAX_VALUE, 5e-324, Math.E]),
        dims,
      );
    case 'BYTES':
      return new ort.Tensor('string', ['', 'a', 'héllo', '日本', '😀', 'x'.repeat(300)], dims);
  }
}

void describe('fixture models', () => {
  let repo: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    repo = await tempDir('fixtures');
    await generateFixtures(repo.dir);
  });
  after(async () => repo.dispose());

  for (const d of IDENTITY_DATATYPES) {
    const name = identityFixtureName(d);
    void it(`${name} round-trips a ${d} tensor unchanged`, async () => {
      const session = await openSession(repo.dir, name);
      const input = sampleTensor(d);
      assert.equal(session.inputMetadata[0]?.isTensor && session.inputMetadata[0].type, input.type);
      assert.deepEqual(inputShape(session, 0), ['batch', 'n']);
      const out = await runOne(session, { INPUT0: input }, 'OUTPUT0');
      assert.equal(out.type, input.type);
      assert.deepEqual(out.dims, input.dims);
      assert.deepEqual(out.data, input.data);
      await session.release();
    });

    void it(`${name} has a config.pbtxt with ${DATATYPE_TABLE[d].config}, max_batch_size 8, dims [ -1 ]`, async () => {
      const text = await readFile(path.join(repo.dir, name, 'config.pbtxt'), 'utf8');
      assert.match(text, new RegExp(`^name: "${name}"$`, 'm'));
      assert.match(text, /^max_batch_size: 8$/m);
      assert.equal(
        text.match(new RegExp(`data_type: ${DATATYPE_TABLE[d].config}\\n`, 'g'))?.length,
        2,
      );
      assert.equal(text.match(/dims: \[ -1 \]/g)?.length, 2);
    });
  }

  void it('slow_fp32 chains slowLayers() MatMul+Tanh layers over one shared 1024x1024 weight', async () => {
    const bytes = await readFile(path.join(repo.dir, 'slow_fp32', '1', 'model.onnx'));
    const model = onnxProto.onnx.ModelProto.decode(bytes);
    const ops = model.graph?.node?.map((n) => n.opType) ?? [];
    // The generator and this test see the same environment, so the same INFERNODE_SLOW_LAYERS.
    assert.equal(ops.filter((op) => op === 'MatMul').length, slowLayers());
    assert.equal(ops.filter((op) => op === 'Tanh').length, slowLayers());
    assert.deepEqual(
      model.graph?.initializer?.map((t) => (t.dims ?? []).map(Number)),
      [[SLOW_WIDTH, SLOW_WIDTH]],
    );
  });

  void it('INFERNODE_SLOW_LAYERS: unset means the default, a whole number sets the depth, else an error', () => {
    assert.equal(slowLayersFrom(undefined), DEFAULT_SLOW_LAYERS);
    assert.equal(slowLayersFrom(''), DEFAULT_SLOW_LAYERS);
    assert.equal(slowLayersFrom('100'), 100);
    assert.equal(slowLayersFrom(' 2500 '), 2500);
    for (const bad of ['0', '-5', '2.5', '1e3', 'abc', '100000000']) {
      assert.throws(() => slowLayersFrom(bad), /INFERNODE_SLOW_LAYERS must be a whole number/);
    }
    const model = onnxProto.onnx.ModelProto.decode(slowModel(3));
    const ops = model.graph?.node?.map((n) => n.opType) ?? [];
    assert.deepEqual(ops, ['MatMul', 'Tanh', 'MatMul', 'Tanh', 'MatMul', 'Tanh']);
    assert.equal(model.graph?.output?.[0]?.name, 'OUTPUT0');
  });

  void it('slow_fp32 runs a batch of 2 to finite, bounded, row-dependent outputs', async () => {
    const session = await openSession(repo.dir, 'slow_fp32');
    assert.deepEqual(inputShape(session, 0), ['batch', SLOW_WIDTH]);
    const input = Float32Array.from(
      { length: 2 * SLOW_WIDTH },
      (_, i) => Math.sin(i % SLOW_WIDTH) * (i < SLOW_WIDTH ? 1 : -1),
    );
    const out = await runOne(
      session,
      { INPUT0: new ort.Tensor('float32', input, [2, SLOW_WIDTH]) },
      'OUTPUT0',
    );
    assert.deepEqual(out.dims, [2, SLOW_WIDTH]);
    const data = out.data as Float32Array;
    // Tanh is last, so everything lies in [-1, 1]; and the signal has not died out to zeros.
    assert.ok(data.every((v) => Number.isFinite(v) && Math.abs(v) <= 1));
    assert.ok(data.some((v) => Math.abs(v) > 1e-3));
    // Tanh is odd and MatMul linear, so negating the input row negates the output row.
    for (let i = 0; i < SLOW_WIDTH; i++) {
      assert.ok(Math.abs((data[i] as number) + (data[SLOW_WIDTH + i] as number)) < 1e-5);
    }
    await session.release();
  });

  void it('slow_fp32 config pins one CPU instance on one intra-op thread', async () => {
    const text = await readFile(path.join(repo.dir, 'slow_fp32', 'config.pbtxt'), 'utf8');
    assert.match(text, /^max_batch_size: 8$/m);
    assert.match(text, /instance_group \[ \{ count: 1, kind: KIND_CPU \} \]/);
    assert.match(text, /key: "intra_op_thread_count"\n\s*value: \{ string_value: "1" \}/);
  });

  void it('failing_run loads, then every run fails inside ORT with its Reshape error', async () => {
    const session = await openSession(repo.dir, 'failing_run');
    assert.deepEqual(inputShape(session, 0), ['batch', FAILING_RUN_WIDTH]);
    for (const rows of [1, 2, 8]) {
      const x = new ort.Tensor('float32', new Float32Array(rows * FAILING_RUN_WIDTH), [
        rows,
        FAILING_RUN_WIDTH,
      ]);
      await assert.rejects(session.run({ INPUT0: x }), /Reshape/, `${rows} row(s)`);
    }
    await session.release();
    const text = await readFile(path.join(repo.dir, 'failing_run', 'config.pbtxt'), 'utf8');
    assert.match(text, /^max_batch_size: 8$/m);
  });

  void it('bad_truncated holds the first bytes of simple and fails to load in ORT', async () => {
    const bytes = await readFile(path.join(repo.dir, 'bad_truncated', '1', 'model.onnx'));
    assert.equal(bytes.length, TRUNCATED_LENGTH);
    assert.ok(bytes.equals(simpleModel().subarray(0, TRUNCATED_LENGTH)), 'not a prefix of simple');
    await assert.rejects(openSession(repo.dir, 'bad_truncated'), /protobuf|parse|load/i);
    const text = await readFile(path.join(repo.dir, 'bad_truncated', 'config.pbtxt'), 'utf8');
    assert.match(text, /^name: "bad_truncated"$/m);
  });
});
