// The per-request A/B bench's result (bench/results/per-request-ab.json) and its section of
// bench/RESULTS.md: two builds of infernode, the one under test ("head") and an older one ("base"),
// measured alternately with default flags, to show what a change costs every request.

import type { MachineInfo } from '../measure/machine-info.js';
import { median } from '../measure/median.js';
import { commitLineOf, machineLineOf } from '../report/run-summary.js';
import { alignColumns, markdownTable } from '../report/tables.js';

export const AB_SCHEMA = 'infernode-bench-per-request-ab/1';

export type AbSide = 'base' | 'head';

/** One `bench run` level against one build. */
export interface AbMeasurement {
  readonly side: AbSide;
  readonly model: string;
  readonly concurrency: number;
  readonly round: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Server CPU time per request, µs (the server's cores over its req/s). */
  readonly cpuUsPerRequest: number;
  readonly errors: number;
}

export interface AbResult {
  readonly schema: typeof AB_SCHEMA;
  readonly startedAt: string;
  readonly command: string;
  readonly machine: MachineInfo;
  /** The base build's commit (from its checkout), or what --base-label said. */
  readonly base: string;
  readonly head: string;
  readonly measurementMs: number;
  readonly rounds: number;
  readonly measurements: readonly AbMeasurement[];
}

/** Medians over the rounds of one side of one (model, concurrency) cell. */
export interface AbCell {
  readonly model: string;
  readonly concurrency: number;
  readonly base: AbMedians;
  readonly head: AbMedians;
  /** Head over base CPU µs/request, round by round (the two sides ran back to back). */
  readonly paired: PairedRatio | null;
}

/**
 * The geometric mean of paired head/base ratios with its 95 % confidence interval (Student's t on
 * the ratios' logarithms). Pairing takes out what drifts between rounds (other load, the
 * machine's clock): each ratio compares two servers measured minutes apart at most.
 */
export interface PairedRatio {
  readonly ratio: number;
  readonly low: number;
  readonly high: number;
  /** Pairs it is computed from. */
  readonly n: number;
}

/** Two-sided 95 % Student's t quantiles for 1..30 degrees of freedom; 1.96 beyond. */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048,
  2.045, 2.042,
];

/** The paired ratio of `ratios` (each head/base), or null with fewer than two. */
export function pairedRatio(ratios: readonly number[]): PairedRatio | null {
  const logs = ratios.filter((x) => x > 0 && Number.isFinite(x)).map(Math.log);
  const n = logs.length;
  if (n < 2) return null;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const half = (T95[n - 2] ?? 1.96) * (sd / Math.sqrt(n));
  return { ratio: Math.exp(mean), low: Math.exp(mean - half), high: Math.exp(mean + half), n };
}

/** Each round's head/base CPU µs per request for one cell (rounds that measured both sides). */
function roundRatios(ms: readonly AbMeasurement[]): number[] {
  const rounds = [...new Set(ms.map((m) => m.round))];
  return rounds.flatMap((round) => {
    const base = ms.find((m) => m.round === round && m.side === 'base');
    const head = ms.find((m) => m.round === round && m.side === 'head');
    return base === undefined || head === undefined || base.cpuUsPerRequest <= 0
      ? []
      : [head.cpuUsPerRequest / base.cpuUsPerRequest];
  });
}

/** Every cell's round ratios together: the change's cost over all models and loads measured. */
export function pooledRatio(r: AbResult): PairedRatio | null {
  return pairedRatio(
    abCellMeasurements(r).flatMap(({ measurements }) => roundRatios(measurements)),
  );
}

export interface AbMedians {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
  /** Lowest and highest CPU µs per request over the rounds: the run's own spread. */
  readonly cpuUsRange: readonly [number, number];
}

function medians(ms: readonly AbMeasurement[]): AbMedians {
  const cpu = ms.map((m) => m.cpuUsPerRequest);
  return {
    reqPerSec: median(ms.map((m) => m.reqPerSec)),
    p50Ms: median(ms.map((m) => m.p50Ms)),
    p99Ms: median(ms.map((m) => m.p99Ms)),
    cpuUsPerRequest: median(cpu),
    cpuUsRange: [Math.min(...cpu), Math.max(...cpu)],
  };
}

function abCellMeasurements(
  r: AbResult,
): { model: string; concurrency: number; measurements: AbMeasurement[] }[] {
  const keys = [...new Set(r.measurements.map((m) => `${m.model}\u0000${m.concurrency}`))];
  return keys.map((k) => {
    const [model, c] = k.split('\u0000') as [string, string];
    const concurrency = Number(c);
    const measurements = r.measurements.filter(
      (m) => m.model === model && m.concurrency === concurrency,
    );
    return { model, concurrency, measurements };
  });
}

export function abCells(r: AbResult): AbCell[] {
  return abCellMeasurements(r).map(({ model, concurrency, measurements }) => {
    const of = (side: AbSide): AbMeasurement[] => measurements.filter((m) => m.side === side);
    return {
      model,
      concurrency,
      base: medians(of('base')),
      head: medians(of('head')),
      paired: pairedRatio(roundRatios(measurements)),
    };
  });
}

const signed = (x: number): string => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)} %`;

/** "+1.2 % (−3.0 … +5.6)" or a dash. */
function pairedText(p: PairedRatio | null): string {
  return p === null ? '–' : `${signed(p.ratio)} (${signed(p.low)} … ${signed(p.high)})`;
}

const ratio = (head: number, base: number): string => (base > 0 ? signed(head / base) : '–');

export function abSection(r: AbResult, source: string): string[] {
  const cells = abCells(r);
  const errors = r.measurements.reduce((n, m) => n + m.errors, 0);
  return [
    '## Per-request cost: this build against an older one',
    '',
    `${machineLineOf(r.machine)}; ${commitLineOf(r.machine)}. \`${r.command}\` (HTTP binary, ` +
      `${r.measurementMs / 1000} s windows, ${r.rounds} rounds alternating base and head in ABBA ` +
      `order, a fresh server each time, client and server on the same cores), from ` +
      `[${source}](${source.replace(/^bench\//, '')}).`,
    '',
    `Base is \`${r.base}\`, head \`${r.head}\`; both serve the same repository with default flags ` +
      '(no tenant header, rate limiter off, no cache). Medians over the rounds; "server CPU" is ' +
      "the server process's CPU time per request (µs), with the rounds' lowest–highest in brackets. " +
      `${errors} errors.`,
    '',
    markdownTable({
      headers: [
        'model',
        'in flight',
        'base CPU µs/req',
        'head CPU µs/req',
        'CPU head/base',
        'paired, 95 % CI',
        'base req/s',
        'head req/s',
        'base p50 / p99 ms',
        'head p50 / p99 ms',
      ],
      rows: cells.map((c) => [
        c.model,
        String(c.concurrency),
        `${c.base.cpuUsPerRequest.toFixed(0)} (${c.base.cpuUsRange[0].toFixed(0)}–${c.base.cpuUsRange[1].toFixed(0)})`,
        `${c.head.cpuUsPerRequest.toFixed(0)} (${c.head.cpuUsRange[0].toFixed(0)}–${c.head.cpuUsRange[1].toFixed(0)})`,
        ratio(c.head.cpuUsPerRequest, c.base.cpuUsPerRequest),
        pairedText(c.paired),
        c.base.reqPerSec.toFixed(0),
        c.head.reqPerSec.toFixed(0),
        `${c.base.p50Ms.toFixed(2)} / ${c.base.p99Ms.toFixed(2)}`,
        `${c.head.p50Ms.toFixed(2)} / ${c.head.p99Ms.toFixed(2)}`,
      ]),
      align: alignColumns(10, [0]),
    }),
    '',
    '"Paired" is the geometric mean of each round\'s head/base CPU µs per request (the two ' +
      'servers of a round ran back to back, so drift between rounds cancels), with its 95 % ' +
      "confidence interval (Student's t over the rounds' log ratios). An interval that holds 0 % " +
      'means this machine saw no difference; its width is the smallest change it could have seen.',
    '',
    ...pooledLine(pooledRatio(r)),
  ];
}

function pooledLine(p: PairedRatio | null): string[] {
  if (p === null) return [];
  const verdict =
    p.low <= 1 && p.high >= 1
      ? 'no difference seen (the interval holds 0 %)'
      : p.low > 1
        ? 'head costs more'
        : 'head costs less';
  return [
    `All cells together (${p.n} pairs): head/base ${pairedText(p)}: ${verdict}; at 95 % ` +
      `confidence the change adds at most ${signed(p.high)} to a request's server CPU.`,
    '',
  ];
}
