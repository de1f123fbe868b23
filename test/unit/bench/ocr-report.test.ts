// The OCR bench's section of bench/RESULTS.md, from hand-made results: one table row per set-up
// and client concurrency with images/s, latency in ms, and the step models' compute and lines per
// call; with a second set-up, its speed-up over the first; a set-up that could not run, its error.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OCR_SCHEMA, type OcrLevel, type OcrResult } from '../../../bench/ocr/ocr-result.js';
import { ocrSection, speedUp } from '../../../bench/report/ocr-report.js';
import { newHistogram, recordUs, summarize } from '../../../bench/measure/latency-histogram.js';

function latency(values: number[]) {
  const h = newHistogram();
  for (const v of values) recordUs(h, v);
  return summarize(h);
}

const LEVEL: OcrLevel = {
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
};

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
  gpus: [],
  images: [{ name: 'three lines', width: 640, height: 320, pngBytes: 16 * 1024, lines: 3 }],
  setups: [{ name: 'cpu', configName: null, unavailable: null, levels: [LEVEL] }],
};

/** The cells of the table row for `setup` at `clients`. */
function rowCells(text: string, setup: string, clients: number): string[] {
  const row = text
    .split('\n')
    .find((l) => new RegExp(`^\\|\\s*${setup}\\s*\\|\\s*${clients} \\|`).test(l));
  assert.ok(row !== undefined, text);
  return row
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

const GPU_LEVEL: OcrLevel = {
  ...LEVEL,
  images: 96,
  imagesPerSecond: 8,
  misread: 0,
  latency: latency([400_000, 420_000, 500_000]),
};

const COMPARED: OcrResult = {
  ...RESULT,
  command: 'npm run bench:ocr -- --compare-gpu',
  gpus: ['NVIDIA H200'],
  setups: [
    ...RESULT.setups,
    { name: 'webgpu', configName: 'webgpu', unavailable: null, levels: [GPU_LEVEL] },
  ],
};

void describe('the OCR section of RESULTS.md', () => {
  void it('names the command, the images, the set-up and one row per concurrency', () => {
    const text = ocrSection(RESULT, 'bench/results/ocr.json').join('\n');
    assert.match(text, /^## OCR pipeline$/m);
    assert.match(
      text,
      /`npm run bench:ocr` \(2026-01-02\); rendered from `bench\/results\/ocr.json`/,
    );
    assert.match(text, /640×320 with 3 lines \(16 KiB PNG\)/);
    assert.match(
      text,
      /\*\*Set-ups\*\*, each on a fresh server: cpu: each step model's `config\.pbtxt`/,
    );
    assert.doesNotMatch(text, /GPU:|vs cpu|unavailable/);
    assert.deepEqual(rowCells(text, 'cpu', 4), [
      'cpu',
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

  void it('gives a second set-up its speed-up over the first at the same concurrency', () => {
    const text = ocrSection(COMPARED, 'bench/results/ocr.json').join('\n');
    assert.match(text, /; GPU: NVIDIA H200$/m);
    assert.match(
      text,
      /webgpu: `--model-config-name=webgpu` \(the step models' `configs\/webgpu\.pbtxt`\)/,
    );
    assert.match(text, /\| set-up \| clients \| images\/s \| vs cpu \| images \|/);
    assert.deepEqual(rowCells(text, 'cpu', 4).slice(0, 4), ['cpu', '4', '3.20', '1×']);
    assert.deepEqual(rowCells(text, 'webgpu', 4).slice(0, 10), [
      'webgpu',
      '4',
      '8.00',
      '2.50×',
      '96',
      '0',
      '0',
      '420',
      '500',
      '500',
    ]);
    assert.equal(speedUp(COMPARED, COMPARED.setups[1]!, GPU_LEVEL), 2.5);
    assert.equal(speedUp(COMPARED, COMPARED.setups[0]!, LEVEL), null);
  });

  void it('keeps the first set-up rows and names the error of one that could not run', () => {
    const reason =
      "server exited with 1: ocr_detector: model failed to load: no Vulkan adapter; start-up failed: failed to load 'ocr_detector'";
    const text = ocrSection(
      {
        ...RESULT,
        setups: [
          ...RESULT.setups,
          { name: 'webgpu', configName: 'webgpu', unavailable: reason, levels: [] },
        ],
      },
      'bench/results/ocr.json',
    ).join('\n');
    assert.ok(text.includes(`- **webgpu unavailable:** ${reason}`), text);
    assert.equal(rowCells(text, 'cpu', 4)[2], '3.20');
    assert.doesNotMatch(text, /vs cpu|\|\s*webgpu\s*\|/);
  });

  void it('has no table when no set-up was measured', () => {
    const text = ocrSection(
      {
        ...RESULT,
        setups: [{ name: 'webgpu', configName: 'webgpu', unavailable: 'no GPU', levels: [] }],
      },
      'bench/results/ocr.json',
    ).join('\n');
    assert.match(text, /\*\*webgpu unavailable:\*\* no GPU/);
    assert.doesNotMatch(text, /^\|/m);
  });
});
