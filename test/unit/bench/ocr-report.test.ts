// The OCR bench's section of bench/RESULTS.md, from a hand-made result: one table row per client
// concurrency with images/s, latency in ms, and the step models' compute and lines per call.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OCR_SCHEMA, type OcrResult } from '../../../bench/ocr/ocr-result.js';
import { ocrSection } from '../../../bench/report/ocr-report.js';
import { newHistogram, recordUs, summarize } from '../../../bench/measure/latency-histogram.js';

function latency(values: number[]) {
  const h = newHistogram();
  for (const v of values) recordUs(h, v);
  return summarize(h);
}

const RESULT: OcrResult = {
  schema: OCR_SCHEMA,
  command: 'npm run bench:ocr',
  startedAt: '2026-01-02T03:04:05.000Z',
  machine: {
    cpuModel: 'Test CPU',
    cpus: 2,
    memoryBytes: 8 * 1024 ** 3,
    os: 'Linux 6.0',
    arch: 'x64',
    node: 'v20.0.0',
    onnxruntimeNode: '1.30.0',
    infernode: '0.1.0',
    commit: '0123456789abcdef0123',
    dirty: false,
  },
  images: [{ name: 'three lines', width: 640, height: 320, pngBytes: 16 * 1024, lines: 3 }],
  levels: [
    {
      concurrency: 4,
      seconds: 10,
      images: 32,
      imagesPerSecond: 3.2,
      misread: 1,
      errors: 0,
      latency: latency([1_000_000, 1_200_000, 1_500_000]),
      steps: [
        {
          model: 'ocr_detector',
          requests: 32,
          inferences: 32,
          executions: 30,
          computeMsPerRequest: 80.4,
        },
        {
          model: 'ocr_recognizer',
          requests: 32,
          inferences: 96,
          executions: 32,
          computeMsPerRequest: 150,
        },
      ],
    },
  ],
};

void describe('the OCR section of RESULTS.md', () => {
  void it('names the command, the images and one row per concurrency', () => {
    const text = ocrSection(RESULT, 'bench/results/ocr.json').join('\n');
    assert.match(text, /^## OCR pipeline$/m);
    assert.match(
      text,
      /`npm run bench:ocr` \(2026-01-02\); rendered from `bench\/results\/ocr.json`/,
    );
    assert.match(text, /640×320 with 3 lines \(16 KiB PNG\)/);
    const row = text.split('\n').find((l) => l.startsWith('|') && /^\|\s+4 \|/.test(l));
    assert.ok(row !== undefined, text);
    const cells = row
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    assert.deepEqual(cells, [
      '4',
      '3.20',
      '32',
      '1',
      '0',
      '1200',
      '1500',
      '1500',
      '80',
      '150',
      '3.0',
    ]);
  });
});
