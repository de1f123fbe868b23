// The bench/RESULTS.md section of the OCR bench, from bench/results/ocr.json: images per second and
// per-image latency by client concurrency, and the detector's and recogniser's share.

import type { OcrResult } from '../ocr/ocr-result.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const ms = (us: number): string => (us / 1000).toFixed(0);

export function ocrSection(result: OcrResult, source: string): string[] {
  const out: string[] = [];
  out.push('## OCR pipeline', '');
  out.push(
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
    '',
  );
  const images = result.images
    .map(
      (i) =>
        `${i.width}×${i.height} with ${i.lines} lines (${(i.pngBytes / 1024).toFixed(0)} KiB PNG)`,
    )
    .join('; ');
  out.push(
    `- **Machine:** ${machineLineOf(result.machine)}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    '- **Workload:** closed loop, each client sending one rendered PNG after another as binary ' +
      'tensor data to the bundled `ocr` model (a JavaScript model that decodes the image and ' +
      'calls `ocr_detector` and `ocr_recognizer` by BLS), taking the images in turn: ' +
      `${images}. Every answer is checked against the rendered text.`,
    '',
  );
  out.push(
    markdownTable({
      headers: [
        'clients',
        'images/s',
        'images',
        'misread',
        'errors',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'detector ms/call',
        'recogniser ms/call',
        'lines/call',
      ],
      rows: result.levels.map((l) => {
        const det = l.steps.find((s) => s.model === 'ocr_detector');
        const rec = l.steps.find((s) => s.model === 'ocr_recognizer');
        return [
          String(l.concurrency),
          l.imagesPerSecond.toFixed(2),
          String(l.images),
          String(l.misread),
          String(l.errors),
          ms(l.latency.p50Us),
          ms(l.latency.p90Us),
          ms(l.latency.p99Us),
          det === undefined ? '' : det.computeMsPerRequest.toFixed(0),
          rec === undefined ? '' : rec.computeMsPerRequest.toFixed(0),
          rec === undefined || rec.requests === 0 ? '' : (rec.inferences / rec.requests).toFixed(1),
        ];
      }),
      align: alignColumns(11, []),
    }),
    '',
  );
  return out;
}
