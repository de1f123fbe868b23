// The OCR pipeline's order of steps, independent of how the two ONNX models are reached: the JS
// model calls them by BLS, the unit tests call ONNX Runtime sessions directly, with the same code.

import { detectorInput, textBoxes } from './ocr-detect.mjs';
import { ctcDecode, recognizerInput } from './ocr-recognize.mjs';

/**
 * Reads the text of `image` ({ width, height, rgb }): detect(input) and recognize(input) each take
 * { data: Float32Array, shape } and resolve to the model's output { data, shape }. Lines are
 * recognised `batch` boxes per call (one call for up to `batch` lines). Resolves to
 * [{ text, score, box: { x0, y0, x1, y1 } }] in reading order.
 */
export async function readText(image, models, table, options = {}) {
  const batch = options.batch ?? 32;
  const input = detectorInput(image, options.limitSide);
  const map = await models.detect(input);
  const [, , height, width] = input.shape;
  if (map.shape.length !== 4 || map.shape[2] !== height || map.shape[3] !== width) {
    throw new Error(
      `expected the detector to answer [1, 1, ${height}, ${width}], got [${map.shape.join(', ')}]`,
    );
  }
  const boxes = textBoxes(map.data, width, height, image.width, image.height, options);
  const lines = [];
  for (let i = 0; i < boxes.length; i += batch) {
    const some = boxes.slice(i, i + batch);
    const crops = recognizerInput(image, some);
    const probs = await models.recognize(crops);
    ctcDecode(probs.data, probs.shape, table).forEach((line, j) => {
      const { x0, y0, x1, y1 } = some[j];
      // A generous crop may read the margin as a space: a line's ends carry none.
      lines.push({ text: line.text.trim(), score: line.score, box: { x0, y0, x1, y1 } });
    });
  }
  return lines;
}
