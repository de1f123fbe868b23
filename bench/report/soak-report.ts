// What the soak bench publishes from bench/results/soak.json: a CSV of its samples (RSS and the
// cumulative counts by outcome), the RSS curve, and its section of bench/RESULTS.md.

import type { SoakResult } from '../soak/soak-result.js';
import { OUTCOMES } from '../soak/soak-scenarios.js';
import { niceAxis, rangeAxis, type PlotModel } from './plot-model.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const MIB = 2 ** 20;
const mib = (b: number): string => (b / MIB).toFixed(1);
const n = (x: number): string => x.toLocaleString('en-US');
/** "10-minute" for a full run, "20-second" for a short trial. */
const span = (secs: number): string =>
  secs >= 120 ? `${Math.round(secs / 60)}-minute` : `${Math.round(secs)}-second`;

export function soakCsv(result: SoakResult): string {
  const rows = [`t_s,rss_mib,${OUTCOMES.join(',')}`];
  for (const s of result.samples) {
    rows.push([s.t.toFixed(1), mib(s.rssBytes), ...OUTCOMES.map((o) => s.counts[o])].join(','));
  }
  return `${rows.join('\n')}\n`;
}

export function soakPlotModel(result: SoakResult): PlotModel {
  const points = result.samples.map((s) => ({
    x: s.t,
    y: s.rssBytes / MIB,
    label: `${s.t.toFixed(0)} s`,
  }));
  const ys = points.map((p) => p.y);
  return {
    title: `Server RSS over a ${span(result.durationSecs)} mixed soak`,
    xLabel: 'seconds since the load started',
    yLabel: 'RSS (MiB)',
    series: [{ label: 'infernode RSS', color: '#2563eb', dashed: false, points }],
    markers: [{ x: result.warmupSecs, label: 'end of warm-up' }],
    x: niceAxis(0, result.durationSecs),
    y: rangeAxis(Math.min(...ys), Math.max(...ys)),
  };
}

/** The bench/RESULTS.md section. */
export function soakSection(result: SoakResult, source: string, imagePath: string): string[] {
  const out: string[] = [];
  const last = result.samples[result.samples.length - 1];
  const totals = last?.counts ?? { ok: 0, rejected: 0, cancelled: 0, error: 0 };
  out.push(`## Soak: a ${span(result.durationSecs)} run of mixed traffic`, '');
  out.push(
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
    '',
  );
  out.push(
    `- **Machine:** ${machineLineOf(result.machine)}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    `- **Workload:** a spawned \`infernode ${result.serverArgs.join(' ')}\` (front end: ` +
      `${result.frontEnd ?? 'unknown'}) on the bundled model_repository; ${result.lanes} closed-loop ` +
      'lanes in the bench process, each with a keep-alive HTTP connection and a WebSocket, draw ' +
      'from a fixed, seeded mix of good, bad and cancelled requests (table below). The RSS is ' +
      "the server process's VmRSS (main thread and every worker), sampled every " +
      `${((result.samples[1]?.t ?? 0) - (result.samples[0]?.t ?? 0)).toFixed(0)} s.`,
    '',
  );
  const growth = result.growthPercent;
  out.push(
    markdownTable({
      headers: [
        `RSS at ${result.warmupSecs} s (end of warm-up)`,
        'RSS at the end',
        'growth',
        'peak RSS sampled',
        'requests',
        'ok',
        'rejected (4xx / error frame)',
        'cancelled',
        'errors',
        'ready at the end',
      ],
      rows: [
        [
          `${mib(result.rssAfterWarmupBytes)} MiB`,
          `${mib(result.rssEndBytes)} MiB`,
          `${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %`,
          `${mib(Math.max(...result.samples.map((s) => s.rssBytes)))} MiB`,
          n(totals.ok + totals.rejected + totals.cancelled + totals.error),
          n(totals.ok),
          n(totals.rejected),
          n(totals.cancelled),
          n(totals.error),
          result.readyAtEnd ? 'yes' : '**no**',
        ],
      ],
      align: alignColumns(10, [9]),
    }),
    '',
  );
  out.push(
    markdownTable({
      headers: ['scenario', 'kind', 'ok', 'rejected', 'cancelled', 'errors', 'first error'],
      rows: result.scenarios.map((s) => [
        s.name,
        s.kind,
        n(s.counts.ok),
        n(s.counts.rejected),
        n(s.counts.cancelled),
        n(s.counts.error),
        s.errorSample ?? '',
      ]),
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'left'],
    }),
    '',
  );
  out.push(
    'An error is any answer a healthy server would not give: a 5xx, a 200 to a bad request, a ' +
      'refusal of a good one, a dropped connection or socket where an answer was due. A cancelled ' +
      'request whose answer beat the cancel counts as ok. The growth is measured from the end of ' +
      'the warm-up (allocator pools, the V8 heap and the JIT reach their working size first) to the ' +
      'last sample; every sample is in the CSV next to the JSON.',
    '',
  );
  out.push(`![RSS over the soak](${imagePath})`, '');
  return out;
}
