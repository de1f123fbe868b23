// The bundled OCR pipeline on a real server: `ocr` (a JavaScript model calling ocr_detector and
// ocr_recognizer by BLS) reads images rendered here exactly, whether the PNG arrives as base64 in
// JSON or as binary tensor data, and `ocr_rgb` reads the same pixels sent as an RGB tensor;
// concurrent images each get their own lines, every image's lines go to the recogniser in one
// request, and bytes that are no image fail that request alone.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OCR_CASES } from '../../bench/model/ocr-images.js';
import { importSharp, ocrPackagesMissing, type Sharp } from '../../bench/model/ocr-packages.js';
import { renderTextPng, textFontMissing } from '../../bench/model/text-image.js';
import { MODEL_REPOSITORY } from '../helpers/paths.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

interface Output {
  name: string;
  datatype: string;
  shape: number[];
  data: unknown[];
}

const OCR_MODELS = ['ocr_detector', 'ocr_recognizer', 'ocr', 'ocr_rgb'];

/** A binary-extension body: the JSON header, then `payload` as the one input's bytes. */
function binaryBody(header: unknown, payload: Uint8Array): { body: Buffer; headerLength: number } {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  return { body: Buffer.concat([json, payload]), headerLength: json.length };
}

void describe('the OCR pipeline', { skip: textFontMissing() ?? ocrPackagesMissing() }, () => {
  let t: TestServer;
  let sharp: Sharp;
  before(async () => {
    sharp = await importSharp();
    t = await startTestServer({
      modelRepositories: [MODEL_REPOSITORY],
      modelControlMode: 'explicit',
      loadModels: OCR_MODELS,
    });
  });
  after(async () => {
    await t?.close();
  });

  const outputs = (json: Record<string, unknown>): Map<string, Output> =>
    new Map((json.outputs as Output[]).map((o) => [o.name, o]));

  const readJson = async (png: Buffer): Promise<Map<string, Output>> => {
    const r = await postJson(`${t.base}/v2/models/ocr/infer`, {
      inputs: [{ name: 'IMAGE', datatype: 'BYTES', shape: [1], data: [png.toString('base64')] }],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return outputs(r.json as Record<string, unknown>);
  };

  const stats = async (model: string) =>
    (
      (await (await fetch(`${t.base}/v2/models/${model}/stats`)).json()) as {
        model_stats: { inference_count: number; execution_count: number }[];
      }
    ).model_stats[0] as { inference_count: number; execution_count: number };

  for (const c of OCR_CASES) {
    void it(`reads ${c.name} exactly, from a base64 PNG in JSON`, async () => {
      const out = await readJson(renderTextPng(c.image));
      assert.deepEqual(out.get('TEXT'), {
        name: 'TEXT',
        datatype: 'BYTES',
        shape: [c.lines.length],
        data: c.lines,
      });
      const score = out.get('SCORE');
      assert.deepEqual(score?.shape, [c.lines.length]);
      for (const s of score?.data ?? []) assert.ok((s as number) > 0.9, `score ${String(s)}`);
      const boxes = out.get('BOXES');
      assert.equal(boxes?.datatype, 'INT32');
      assert.deepEqual(boxes?.shape, [c.lines.length, 4]);
      c.image.lines.forEach((drawn, i) => {
        const [x0, y0, x1, y1] = (boxes?.data ?? []).slice(i * 4, i * 4 + 4) as number[];
        assert.ok((y0 as number) < drawn.y && drawn.y <= (y1 as number), `line ${i} y`);
        assert.ok(
          Math.abs((x0 as number) - drawn.x) < 12 && (x1 as number) > drawn.x,
          `line ${i} x`,
        );
      });
    });
  }

  void it('reads a PNG sent as binary tensor data, and an RGB tensor through ocr_rgb', async () => {
    const c = OCR_CASES[0];
    assert.ok(c !== undefined);
    const png = renderTextPng(c.image);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(png.length);
    const element = Buffer.concat([length, png]);
    const asBytes = binaryBody(
      {
        inputs: [
          {
            name: 'IMAGE',
            datatype: 'BYTES',
            shape: [1],
            parameters: { binary_data_size: element.length },
          },
        ],
      },
      element,
    );
    const r1 = await fetch(`${t.base}/v2/models/ocr/infer`, {
      method: 'POST',
      headers: { 'Inference-Header-Content-Length': String(asBytes.headerLength) },
      body: asBytes.body,
    });
    const j1 = (await r1.json()) as Record<string, unknown>;
    assert.equal(r1.status, 200, JSON.stringify(j1));
    assert.deepEqual(outputs(j1).get('TEXT')?.data, c.lines);

    const { data, info } = await sharp(png)
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const asRgb = binaryBody(
      {
        inputs: [
          {
            name: 'RGB',
            datatype: 'UINT8',
            shape: [info.height, info.width, 3],
            parameters: { binary_data_size: data.length },
          },
        ],
      },
      data,
    );
    const r2 = await fetch(`${t.base}/v2/models/ocr_rgb/infer`, {
      method: 'POST',
      headers: { 'Inference-Header-Content-Length': String(asRgb.headerLength) },
      body: asRgb.body,
    });
    const j2 = (await r2.json()) as Record<string, unknown>;
    assert.equal(r2.status, 200, JSON.stringify(j2));
    assert.deepEqual(outputs(j2).get('TEXT')?.data, c.lines);
  });

  void it('gives concurrent images each their own lines, one recogniser request per image', async () => {
    const pngs = OCR_CASES.map((c) => renderTextPng(c.image));
    const before = await stats('ocr_recognizer');
    const got = await Promise.all([...pngs, ...pngs].map((png) => readJson(png)));
    got.forEach((out, i) => {
      const c = OCR_CASES[i % OCR_CASES.length];
      assert.deepEqual(out.get('TEXT')?.data, c?.lines, c?.name);
    });
    const after = await stats('ocr_recognizer');
    const lines = OCR_CASES.reduce((n, c) => n + c.lines.length, 0);
    assert.equal(after.inference_count - before.inference_count, 2 * lines);
    // One request per image, each of all its lines; the batcher may merge some of them further.
    assert.ok(after.execution_count - before.execution_count <= got.length);
  });

  void it('answers no lines for a blank image, and an error for bytes that are no image', async () => {
    const blank = await sharp({
      create: { width: 200, height: 100, channels: 3, background: '#ffffff' },
    })
      .png()
      .toBuffer();
    const out = await readJson(blank);
    assert.deepEqual(out.get('TEXT')?.shape, [0]);
    assert.deepEqual(out.get('BOXES')?.shape, [0, 4]);
    const r = await postJson(`${t.base}/v2/models/ocr/infer`, {
      inputs: [{ name: 'IMAGE', datatype: 'BYTES', shape: [1], data: ['not an image'] }],
    });
    assert.equal(r.status, 500);
    assert.match(JSON.stringify(r.json), /expected IMAGE to be an encoded PNG or JPEG/);
    // The model goes on reading after the failure.
    const c = OCR_CASES[0];
    assert.ok(c !== undefined);
    assert.deepEqual((await readJson(renderTextPng(c.image))).get('TEXT')?.data, c.lines);
  });
});
