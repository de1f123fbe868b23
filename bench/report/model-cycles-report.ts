// What the load/unload memory bench publishes from bench/results/model-cycles.json: the curve as a
// CSV (one row per cycle, columns per allocator), a plot, and its section of bench/RESULTS.md.

import type { CycleCurve, CyclesResult } from '../model-management/cycles-result.js';
import { bytes } from './format.js';
import { median } from '../measure/median.js';
import { niceAxis, rangeAxis, type PlotModel, type PlotSeries } from './plot-model.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const MIB = 1024 * 1024;
const COLORS = ['#2563eb', '#059669', '#dc2626', '#7c3aed'];

/** RSS after cycle `n` (1-based), or the baseline for 0. */
function rssAt(curve: CycleCurve, n: number): number | undefined {
  return n === 0 ? curve.baselineRssBytes : curve.samples[n - 1]?.rssBytes;
}

const mib = (b: number | undefined): string => (b === undefined ? '–' : (b / MIB).toFixed(1));

/** Bytes per cycle as KiB with a sign, the unit a slow leak reads best in. */
export function perCycle(bytesPerCycle: number): string {
  const kib = bytesPerCycle / 1024;
  return `${kib >= 0 ? '+' : '−'}${Math.abs(kib).toFixed(1)} KiB`;
}

/** One row per cycle: after-unload and loaded RSS (KiB) and threads, per allocator. */
export function cyclesCsv(result: CyclesResult): string {
  const head = ['cycle'];
  for (const c of result.curves) {
    head.push(
      `${c.allocator}_rss_kib`,
      `${c.allocator}_loaded_rss_kib`,
      `${c.allocator}_threads`,
      `${c.allocator}_load_ms`,
      `${c.allocator}_unload_ms`,
    );
  }
  const rows = [head.join(',')];
  const kib = (b: number | undefined): string =>
    b === undefined ? '' : String(Math.round(b / 1024));
  rows.push(
    [
      '0',
      ...result.curves.flatMap((c) => [
        kib(c.baselineRssBytes),
        '',
        String(c.baselineThreads),
        '',
        '',
      ]),
    ].join(','),
  );
  for (let n = 1; n <= result.cycles; n += 1) {
    const cells = [String(n)];
    for (const c of result.curves) {
      const s = c.samples[n - 1];
      cells.push(
        kib(s?.rssBytes),
        kib(s?.loadedRssBytes),
        s === undefined ? '' : String(s.threads),
        s === undefined ? '' : s.loadMs.toFixed(1),
        s === undefined ? '' : s.unloadMs.toFixed(1),
      );
    }
    rows.push(cells.join(','));
  }
  return `${rows.join('\n')}\n`;
}

export function cyclesPlotModel(result: CyclesResult): PlotModel {
  const series: PlotSeries[] = [];
  result.curves.forEach((c, i) => {
    const color = COLORS[i % COLORS.length] ?? '#000000';
    const points = (pick: 'rssBytes' | 'loadedRssBytes') =>
      c.samples.map((s) => ({ x: s.cycle, y: s[pick] / MIB, label: `cycle ${s.cycle}` }));
    series.push({
      label: `${c.label}, unloaded`,
      color,
      dashed: false,
      points: points('rssBytes'),
    });
    series.push({
      label: `${c.label}, loaded`,
      color,
      dashed: true,
      points: points('loadedRssBytes'),
    });
  });
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  return {
    title: `${result.model}: server RSS over ${result.cycles} load/unload cycles`,
    xLabel: 'cycle',
    yLabel: 'RSS (MiB)',
    series,
    markers: [{ x: result.fitFrom, label: 'fit from' }],
    x: niceAxis(0, result.cycles),
    y: rangeAxis(Math.min(...ys), Math.max(...ys)),
  };
}

/** The bench/RESULTS.md section. */
export function cyclesSection(result: CyclesResult, source: string, imagePath: string): string[] {
  const out: string[] = [];
  out.push(`## Memory over ${result.cycles} load/unload cycles of \`${result.model}\``, '');
  out.push(
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
    '',
  );
  out.push(
    `- **Machine:** ${machineLineOf(result.machine)}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    `- **Workload:** a spawned \`infernode ${result.serverArgs.join(' ')}\`; each cycle loads ` +
      `\`${result.model}\` (RepositoryModelLoad over gRPC), sends ${result.inferencesPerCycle} inferences ` +
      'over HTTP on two connections, unloads it (RepositoryModelUnload, which answers once the ' +
      "workers have exited) and reads the server's VmRSS and thread count from /proc/<pid>/status.",
    '',
  );
  const checkpoints = [0, 1, result.fitFrom, result.cycles];
  const table = {
    headers: [
      'memory set-up',
      ...checkpoints.map((n) => (n === 0 ? 'RSS before the first load, MiB' : `after cycle ${n}`)),
      `slope, cycles ${result.fitFrom}–${result.cycles}`,
      'r²',
      'loaded RSS, last cycle',
      'peak RSS',
      'threads: start / after each unload',
      'load / unload, median ms',
    ],
    rows: result.curves.map((c) => {
      const last = c.samples[c.samples.length - 1];
      const threads = [...new Set(c.samples.map((s) => s.threads))].sort((a, b) => a - b);
      return [
        `${c.label}${c.preloadVerified ? '' : ' (preload NOT seen in the process)'}`,
        ...checkpoints.map((n) => mib(rssAt(c, n))),
        `${perCycle(c.fit.slope)} / cycle`,
        c.fit.r2.toFixed(2),
        `${mib(last?.loadedRssBytes)} MiB`,
        bytes(peakRss(c)),
        `${c.baselineThreads} / ${threads.length <= 3 ? threads.join(', ') : `${threads[0]}–${threads[threads.length - 1]}`}`,
        `${median(
          c.samples.map((s) => s.loadMs),
          0,
        ).toFixed(0)} / ${median(
          c.samples.map((s) => s.unloadMs),
          0,
        ).toFixed(0)}`,
      ];
    }),
    align: alignColumns(11),
  };
  out.push(markdownTable(table), '');
  out.push(
    `The slope is the least-squares fit of the after-unload RSS over cycles ${result.fitFrom} to ` +
      `${result.cycles}; the cycles before are warm-up (allocator pools and the V8 heap reach their working size). ` +
      'Every cycle is in the CSV next to the JSON.',
    '',
  );
  if (result.curves.some((c) => c.allocator === 'glibc-gc')) {
    out.push(
      'The full-GC run is a measurement, not a set-up to deploy: the bench forces a V8 garbage ' +
        "collection of the server's main thread through its inspector after every unload, so the " +
        'difference between its curve and plain glibc is garbage V8 had not collected yet.',
      '',
    );
  }
  out.push(`![RSS over load/unload cycles](${imagePath})`, '');
  return out;
}

/**
 * The largest RSS of the run: VmHWM read at the end, or a sample above it (the kernel updates
 * VmHWM lazily, so the last loaded sample can exceed the value it reports).
 */
export function peakRss(c: CycleCurve): number {
  return Math.max(c.peakRssBytes, ...c.samples.map((s) => Math.max(s.rssBytes, s.loadedRssBytes)));
}
