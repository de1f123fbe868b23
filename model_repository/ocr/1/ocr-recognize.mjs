// The OCR pipeline's recognition step, around the PP-OCRv4 recogniser (a CTC text recogniser):
// one batch of line crops made from the image and its text boxes, and strings with scores decoded
// from the per-step class probabilities it answers.

import { resampleToPlanes } from './ocr-image.mjs';

/** The recogniser's input height; its output has one step per 8 pixels of width. */
export const REC_HEIGHT = 48;
const REC_STEP = 8;
/** PaddleOCR's rec_image_shape is 3x48x320: a batch is never narrower than 320 pixels. */
const REC_MIN_WIDTH = 320;
/** A line wider than 48 x 50 pixels after resizing is squeezed to this width. */
const REC_MAX_WIDTH = 2400;
// (x / 255 - 0.5) / 0.5 on every channel.
const REC_NORM = { scale: [2 / 255, 2 / 255, 2 / 255], bias: [-1, -1, -1] };

/**
 * The character table of a CTC head from a PaddleOCR keys file (one character per line): class 0
 * is CTC's blank, classes 1..n the file's lines, and class n + 1 a space (use_space_char).
 */
export function characterTable(keysText) {
  const lines = keysText.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return ['', ...lines.map((line) => line.replace(/\r$/, '')), ' '];
}

/**
 * One recogniser batch, FP32 [boxes.length, 3, 48, W], from the boxes' crops of `image`: each crop
 * is resized to height 48 keeping its aspect ratio and written at the left of its row; W is the
 * widest crop rounded up to a multiple of 8 (and at least 320), the rest of each row is 0 (mid
 * grey once normalised), as PaddleOCR pads.
 */
export function recognizerInput(image, boxes) {
  const widths = boxes.map((b) => {
    const scaled = Math.ceil((REC_HEIGHT * (b.x1 - b.x0)) / (b.y1 - b.y0));
    return Math.min(Math.max(scaled, 1), REC_MAX_WIDTH);
  });
  const widest = Math.max(REC_MIN_WIDTH, ...widths);
  const width = Math.ceil(widest / REC_STEP) * REC_STEP;
  const planeSize = REC_HEIGHT * width;
  const data = new Float32Array(boxes.length * 3 * planeSize);
  boxes.forEach((b, i) => {
    const region = { x: b.x0, y: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0 };
    const out = {
      width: widths[i],
      height: REC_HEIGHT,
      offset: i * 3 * planeSize,
      stride: width,
      planeSize,
    };
    resampleToPlanes(image, region, out, data, REC_NORM);
  });
  return { data, shape: [boxes.length, 3, REC_HEIGHT, width] };
}

/**
 * CTC greedy decoding of `probs`, FP32 [N, T, C] (softmax per step): the most likely class per
 * step, repeats collapsed, blanks dropped. A line's score is the mean of the kept steps'
 * probabilities (0 for an empty line), as PaddleOCR's CTCLabelDecode scores.
 */
export function ctcDecode(probs, shape, table) {
  const [n, steps, classes] = shape;
  if (classes !== table.length) {
    throw new Error(
      `expected the recogniser to answer ${table.length} classes (the keys file's ` +
        `${table.length - 2} characters, blank and space), got ${classes}`,
    );
  }
  const lines = [];
  for (let i = 0; i < n; i++) {
    let text = '';
    let sum = 0;
    let kept = 0;
    let previous = -1;
    for (let t = 0; t < steps; t++) {
      const base = (i * steps + t) * classes;
      let best = 0;
      let bestP = probs[base];
      for (let c = 1; c < classes; c++) {
        const p = probs[base + c];
        if (p > bestP) {
          bestP = p;
          best = c;
        }
      }
      if (best !== 0 && best !== previous) {
        text += table[best];
        sum += bestP;
        kept++;
      }
      previous = best;
    }
    lines.push({ text, score: kept === 0 ? 0 : sum / kept });
  }
  return lines;
}
