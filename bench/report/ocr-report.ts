// The bench/RESULTS.md section of the OCR bench, from bench/results/ocr.json: images per second and
// per-image latency by server set-up and client concurrency, the detector's and recogniser's
// share, each set-up's speed-up over the first (the bundled CPU configs with --compare-gpu), and
// the set-ups that could not run, with the server's error.

import type { OcrLevel, OcrResult, OcrSetup } from '../ocr/ocr-result.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const ms = (us: number): string => (us / 1000).toFixed(0);

/**
 * A level's images per second over the first set-up's at the same concurrency; null for the first
 * set-up itself, or when the first has no level at that concurrency (it was unavailable).
 */
export function speedUp(result: OcrResult, setup: OcrSetup, level: OcrLevel): number | null {
  const baseline = result.setups[0];
  if (baseline === undefined || baseline === setup) return null;
  const base = baseline.levels.find((l) => l.concurrency === level.concurrency);
  if (base === undefined || base.imagesPerSecond === 0) return null;
  return level.imagesPerSecond / base.imagesPerSecond;
}

/** What a set-up served the step models from. */
function configOf(s: OcrSetup): string {
  return s.configName === null
    ? "each step model's `config.pbtxt` (one KIND_CPU instance)"
    : `\`--model-config-name=${s.configName}\` (the step models' \`configs/${s.configName}.pbtxt\`)`;
}

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
  const gpus = result.gpus.length === 0 ? '' : `; GPU: ${result.gpus.join(', ')}`;
  out.push(
    `- **Machine:** ${machineLineOf(result.machine)}${gpus}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    '- **Workload:** closed loop, each client sending one rendered PNG after another as binary ' +
      'tensor data to the bundled `ocr` model (a JavaScript model that decodes the image and ' +
      'calls `ocr_detector` and `ocr_recognizer` by BLS), taking the images in turn: ' +
      `${images}. Every answer is checked against the rendered text.`,
    `- **Set-ups**, each on a fresh server: ${result.setups
      .map((s) => `${s.name}: ${configOf(s)}`)
      .join('; ')}.`,
  );
  for (const s of result.setups) {
    if (s.unavailable !== null) out.push(`- **${s.name} unavailable:** ${s.unavailable}`);
  }
  out.push('');
  const rows = result.setups.flatMap((s) => s.levels.map((l) => ({ s, l })));
  if (rows.length === 0) return out;
  const baseline = result.setups[0]?.name ?? '';
  const compared = rows.some(({ s, l }) => speedUp(result, s, l) !== null);
  const headers = [
    'set-up',
    'clients',
    'images/s',
    ...(compared ? [`vs ${baseline}`] : []),
    'images',
    'misread',
    'errors',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'detector ms/call',
    'recogniser ms/call',
    'lines/call',
  ];
  out.push(
    markdownTable({
      headers,
      rows: rows.map(({ s, l }) => {
        const det = l.steps.find((st) => st.model === 'ocr_detector');
        const rec = l.steps.find((st) => st.model === 'ocr_recognizer');
        const x = speedUp(result, s, l);
        return [
          s.name,
          String(l.concurrency),
          l.imagesPerSecond.toFixed(2),
          ...(compared
            ? [s === result.setups[0] ? '1×' : x === null ? '–' : `${x.toFixed(2)}×`]
            : []),
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
      align: alignColumns(headers.length, [0]),
    }),
    '',
  );
  return out;
}
