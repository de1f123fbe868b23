// The OCR pipeline's detection step, around the PP-OCRv4 detector (a DB text detector): the
// detector's input made from an image, and text boxes made from the probability map it answers.

import { resampleToPlanes } from './ocr-image.mjs';

// PaddleOCR's det normalisation (ImageNet mean and std), applied to its BGR planes in this order.
const DET_MEAN = [0.485, 0.456, 0.406];
const DET_STD = [0.229, 0.224, 0.225];
const DET_NORM = {
  scale: DET_STD.map((s) => 1 / (255 * s)),
  bias: DET_MEAN.map((m, c) => -m / DET_STD[c]),
};

/**
 * PaddleOCR's DB post-processing defaults and det resize limit, but for `unclipRatio`: PaddleOCR's
 * 1.5 grows the kernel's contour polygon, which is a little larger than the axis-aligned box of its
 * pixels grown here. Crops too tight lose the spaces between words ("Hello 2026OCR" at 1.5, and
 * "batch=8p99<50ms" from JPEGs at 1.8 and 2.0); at 2.4 spaces appear at the ends of lines. 2.2
 * read every rendered test image exactly, as PNG and as JPEG of quality 75 to 95.
 */
export const DETECT_DEFAULTS = Object.freeze({
  limitSide: 960,
  threshold: 0.3,
  boxThreshold: 0.6,
  unclipRatio: 2.2,
  minSize: 3,
});

/**
 * The detector's input for `image`: resized so that the long side is at most `limitSide` and both
 * sides are multiples of 32 (the detector downsamples by 32), normalised, as FP32 [1, 3, H, W].
 */
export function detectorInput(image, limitSide = DETECT_DEFAULTS.limitSide) {
  const long = Math.max(image.width, image.height);
  const ratio = long > limitSide ? limitSide / long : 1;
  const to32 = (n) => Math.max(32, Math.round((n * ratio) / 32) * 32);
  const width = to32(image.width);
  const height = to32(image.height);
  const planeSize = width * height;
  const data = new Float32Array(3 * planeSize);
  const whole = { x: 0, y: 0, width: image.width, height: image.height };
  resampleToPlanes(
    image,
    whole,
    { width, height, offset: 0, stride: width, planeSize },
    data,
    DET_NORM,
  );
  return { data, shape: [1, 3, height, width] };
}

/**
 * Text boxes from the detector's probability map (`prob`, height x width, the map of one image),
 * in the pixels of the original image (imageWidth x imageHeight), in reading order.
 *
 * DB post-processing, axis-aligned: the map is thresholded; each 8-connected component of the
 * bitmap is a text kernel; its bounding box is kept when the mean probability inside it reaches
 * `boxThreshold` and its short side `minSize`; the detector predicts shrunk kernels, so the box is
 * grown by area * unclipRatio / perimeter on every side (DB's unclip distance). PaddleOCR fits
 * rotated rectangles to contours instead; axis-aligned boxes read horizontal text the same and
 * need no contour tracing. Each box is { x0, y0, x1, y1, score }, x1 and y1 exclusive.
 */
export function textBoxes(prob, width, height, imageWidth, imageHeight, options = {}) {
  const { threshold, boxThreshold, unclipRatio, minSize } = { ...DETECT_DEFAULTS, ...options };
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const boxes = [];
  const scaleX = imageWidth / width;
  const scaleY = imageHeight / height;
  for (let start = 0; start < width * height; start++) {
    if (seen[start] !== 0 || !(prob[start] > threshold)) continue;
    // Flood fill one component, tracking its bounding box.
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    let minX = width;
    let minY = height;
    let maxX = -1;
    let maxY = -1;
    while (top > 0) {
      const p = stack[--top];
      const y = (p / width) | 0;
      const x = p - y * width;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      for (let ny = Math.max(y - 1, 0); ny <= Math.min(y + 1, height - 1); ny++) {
        for (let nx = Math.max(x - 1, 0); nx <= Math.min(x + 1, width - 1); nx++) {
          const q = ny * width + nx;
          if (seen[q] === 0 && prob[q] > threshold) {
            seen[q] = 1;
            stack[top++] = q;
          }
        }
      }
    }
    const w = maxX - minX + 1;
    const h = maxY - minY + 1;
    if (Math.min(w, h) < minSize) continue;
    let sum = 0;
    for (let y = minY; y <= maxY; y++) {
      for (let x = minX; x <= maxX; x++) sum += prob[y * width + x];
    }
    const score = sum / (w * h);
    if (score < boxThreshold) continue;
    const grow = (w * h * unclipRatio) / (2 * (w + h));
    if (Math.min(w, h) + 2 * grow < minSize + 2) continue;
    const x0 = Math.max(0, Math.round((minX - grow) * scaleX));
    const y0 = Math.max(0, Math.round((minY - grow) * scaleY));
    const x1 = Math.min(imageWidth, Math.round((maxX + 1 + grow) * scaleX));
    const y1 = Math.min(imageHeight, Math.round((maxY + 1 + grow) * scaleY));
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    boxes.push({ x0, y0, x1, y1, score });
  }
  return readingOrder(boxes);
}

/**
 * Top to bottom, then left to right within a line: boxes whose tops are within half the smaller
 * box's height of each other count as one line (PaddleOCR uses a fixed 10 pixels, which depends on
 * the image's scale).
 */
export function readingOrder(boxes) {
  const byTop = [...boxes].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  const lines = [];
  for (const box of byTop) {
    const line = lines[lines.length - 1];
    const first = line?.[0];
    const sameLine =
      first !== undefined &&
      Math.abs(box.y0 - first.y0) < Math.min(box.y1 - box.y0, first.y1 - first.y0) / 2;
    if (sameLine) line.push(box);
    else lines.push([box]);
  }
  return lines.flatMap((line) => line.sort((a, b) => a.x0 - b.x0));
}
