// Images with known text for the OCR pipeline, as the unit and integration tests and the OCR bench
// render them: several lines, sizes from 22 to 56 pixels, words side by side, punctuation and
// digits, one image larger than the detector's 960-pixel limit.

import type { TextImage } from './text-image.js';

export interface OcrCase {
  readonly name: string;
  readonly image: TextImage;
  /** The lines it must read as, exactly, in reading order. */
  readonly lines: readonly string[];
}

export const OCR_CASES: readonly OcrCase[] = [
  {
    name: 'three lines, 640 x 320',
    image: {
      width: 640,
      height: 320,
      lines: [
        { text: 'Inference server', x: 40, y: 80, size: 40 },
        { text: 'Hello 2026 OCR', x: 40, y: 170, size: 40 },
        { text: 'batch=8 p99<50ms', x: 40, y: 260, size: 40 },
      ],
    },
    lines: ['Inference server', 'Hello 2026 OCR', 'batch=8 p99<50ms'],
  },
  {
    name: 'sizes from 22 to 56 pixels, two columns, 1280 x 480 (resized for the detector)',
    image: {
      width: 1280,
      height: 480,
      lines: [
        { text: 'Triton compatible', x: 30, y: 80, size: 56 },
        { text: 'KServe v2', x: 820, y: 80, size: 56 },
        { text: 'dynamic batching on worker threads', x: 30, y: 190, size: 36 },
        { text: 'SharedArrayBuffer tensors', x: 30, y: 290, size: 28 },
        { text: 'gRPC, WebSocket and HTTP', x: 30, y: 390, size: 22 },
      ],
    },
    lines: [
      'Triton compatible',
      'KServe v2',
      'dynamic batching on worker threads',
      'SharedArrayBuffer tensors',
      'gRPC, WebSocket and HTTP',
    ],
  },
  {
    name: 'punctuation, digits and two phrases on one line, 800 x 400',
    image: {
      width: 800,
      height: 400,
      lines: [
        { text: 'The quick brown fox', x: 20, y: 60, size: 32 },
        { text: 'jumps over 13 lazy dogs', x: 20, y: 130, size: 26 },
        { text: 'Order #4521: total $87.40', x: 20, y: 200, size: 30 },
        { text: 'max_batch_size 32', x: 20, y: 270, size: 24 },
        { text: 'queue delay 100 us', x: 420, y: 270, size: 24 },
        { text: 'ONNX Runtime 1.30', x: 20, y: 350, size: 48 },
      ],
    },
    lines: [
      'The quick brown fox',
      'jumps over 13 lazy dogs',
      'Order #4521: total $87.40',
      'max_batch_size 32',
      'queue delay 100 us',
      'ONNX Runtime 1.30',
    ],
  },
];
