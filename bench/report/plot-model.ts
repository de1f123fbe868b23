// What the latency-vs-throughput plot shows, independent of how it is drawn (SVG in the HTML
// report, a rasterized PNG for the README): one line per target through its levels, p99 solid and
// p50 dashed, and the raw-ORT machine limit as a vertical marker.

import { levelName } from './format.js';
import type { BenchResult } from './result-types.js';

export interface PlotPoint {
  /** Inferences per second. */
  readonly x: number;
  /** Latency, ms. */
  readonly y: number;
  readonly label: string;
}

export interface PlotSeries {
  readonly label: string;
  readonly color: string;
  readonly dashed: boolean;
  readonly points: readonly PlotPoint[];
}

export interface Axis {
  readonly min: number;
  readonly max: number;
  readonly ticks: readonly number[];
}

export interface PlotModel {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly PlotSeries[];
  /** Vertical reference lines (e.g. the machine's raw-ORT limit). */
  readonly markers: readonly { readonly x: number; readonly label: string }[];
  readonly x: Axis;
  readonly y: Axis;
}

const COLORS: Readonly<Record<string, string>> = {
  'raw-ort': '#6b7280',
  'naive-fastify': '#d97706',
  infernode: '#2563eb',
};
const FALLBACK_COLORS = ['#2563eb', '#059669', '#dc2626', '#7c3aed'];

/** Axis from 0 (or min) to a round number above max, with 4-6 round ticks. */
export function niceAxis(min: number, max: number, target = 5): Axis {
  const lo = Math.min(0, min);
  const hi = max > lo ? max : lo + 1;
  const rough = (hi - lo) / target;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  const top = Math.ceil(hi / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let v = lo; v <= top + step / 1e6; v += step) ticks.push(Math.round(v / step) * step);
  return { min: lo, max: top, ticks };
}

export function latencyThroughputModel(result: BenchResult): PlotModel {
  const series: PlotSeries[] = [];
  const lines = result.targets.filter((t) => t.kind !== 'raw-ort-limit' && t.levels.length > 0);
  lines.forEach((t, i) => {
    const color = COLORS[t.id] ?? FALLBACK_COLORS[i % FALLBACK_COLORS.length] ?? '#000000';
    const pts = (pick: 'p50Us' | 'p99Us'): PlotPoint[] =>
      [...t.levels]
        .sort((a, b) => a.value - b.value)
        .map((l) => ({
          x: l.summary.inferPerSec,
          y: l.summary.latency[pick] / 1000,
          label: levelName(l.mode, l.value),
        }));
    series.push({ label: `${t.label} p99`, color, dashed: false, points: pts('p99Us') });
    series.push({ label: `${t.label} p50`, color, dashed: true, points: pts('p50Us') });
  });
  const markers = result.targets
    .filter((t) => t.id === 'raw-ort-threads')
    .flatMap((t) => t.levels.map((l) => ({ x: l.summary.inferPerSec, label: `${t.label} limit` })));
  const xs = [...series.flatMap((s) => s.points.map((p) => p.x)), ...markers.map((m) => m.x)];
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  return {
    title: `${result.model.name}, batch ${result.model.batchSize}: latency vs throughput`,
    xLabel: 'throughput (inferences/s)',
    yLabel: 'latency (ms)',
    series,
    markers,
    x: niceAxis(0, Math.max(0, ...xs)),
    y: niceAxis(0, Math.max(0, ...ys)),
  };
}

/** Tick text: whole numbers with thousands separators, else up to 3 significant digits. */
export function tickLabel(v: number): string {
  if (Math.abs(v) >= 1000 || Number.isInteger(v)) return Math.round(v).toLocaleString('en-US');
  return String(Number(v.toPrecision(3)));
}
