// What the latency-vs-throughput plot shows, independent of how it is drawn (SVG in the HTML
// report, that SVG rasterized to PNG for the README): one line per target through its levels,
// p99 solid and p50 dashed, and the raw-ORT machine limit as a vertical marker.

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
  readonly scale: 'linear' | 'log';
  readonly min: number;
  readonly max: number;
  readonly ticks: readonly number[];
}

/** Where `v` falls on the axis, 0 at min to 1 at max. */
export function axisFraction(axis: Axis, v: number): number {
  if (axis.scale === 'log') {
    const lv = Math.log10(Math.max(v, axis.min));
    return (lv - Math.log10(axis.min)) / (Math.log10(axis.max) - Math.log10(axis.min));
  }
  return (v - axis.min) / (axis.max - axis.min);
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
  'naive-fastify-1t': '#b45309',
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
  // Ticks from the index, not by repeated addition, and rounded: 3 * 0.2 is 0.6000000000000001.
  for (let i = 0; lo + i * step <= top + step / 1e6; i += 1)
    ticks.push(Number((lo + i * step).toPrecision(12)));
  return { scale: 'linear', min: lo, max: top, ticks };
}

/** A linear axis around [min, max] (not from zero: growth of a few MiB must stay visible). */
export function rangeAxis(min: number, max: number): Axis {
  const span = niceAxis(0, Math.max(max - min, 1));
  const step = (span.ticks[1] ?? 1) - (span.ticks[0] ?? 0);
  const lo = Math.floor(min / step) * step;
  const hi = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let i = 0; lo + i * step <= hi + step / 1e6; i += 1) {
    ticks.push(Number((lo + i * step).toPrecision(12)));
  }
  return { scale: 'linear', min: lo, max: hi === lo ? lo + step : hi, ticks };
}

/** A log axis from the 1-2-5 tick at or below min to the one at or above max. */
export function logAxis(min: number, max: number): Axis {
  const steps: number[] = [];
  for (let d = 10 ** Math.floor(Math.log10(min)); d <= max * 10; d *= 10) {
    for (const m of [1, 2, 5]) steps.push(Number((d * m).toPrecision(6)));
  }
  const lo = [...steps].reverse().find((v) => v <= min) ?? (steps[0] as number);
  const hi = steps.find((v) => v >= max && v > lo) ?? (steps[steps.length - 1] as number);
  return { scale: 'log', min: lo, max: hi, ticks: steps.filter((v) => v >= lo && v <= hi) };
}

/**
 * Throughput spans orders of magnitude when raw ORT is on the plot (it skips HTTP entirely), which
 * would squeeze the servers into one corner: past a 10x spread the x axis turns logarithmic.
 */
function throughputAxis(xs: readonly number[]): Axis {
  const positive = xs.filter((x) => x > 0);
  const min = Math.min(...positive);
  const max = Math.max(0, ...positive);
  return positive.length > 0 && max / min > 10 ? logAxis(min, max) : niceAxis(0, max);
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
  const x = throughputAxis(xs);
  return {
    title: `${result.model.name}, batch ${result.model.batchSize}: latency vs throughput`,
    xLabel: `throughput (inferences/s${x.scale === 'log' ? ', log scale' : ''})`,
    yLabel: 'latency (ms)',
    series,
    markers,
    x,
    y: niceAxis(0, Math.max(0, ...ys)),
  };
}

/** Tick text: whole numbers without separators (the ticks are round: 5000, 10000), else 3 digits. */
export function tickLabel(v: number): string {
  if (Math.abs(v) >= 1000 || Number.isInteger(v)) return String(Math.round(v));
  return String(Number(v.toPrecision(3)));
}
