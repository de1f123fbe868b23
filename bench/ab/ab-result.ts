// The per-request A/B bench's result (bench/results/per-request-ab.json) and its section of
// bench/RESULTS.md: two builds of infernode, the one under test ("head") and an older one ("base"),
// measured alternately with default flags, to show what a change costs every request.

import type { MachineInfo } from '../measure/machine-info.js';
import { commitLineOf, machineLineOf } from '../report/run-summary.js';
import { markdownTable } from '../report/tables.js';

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

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1
    ? (s[(n - 1) / 2] as number)
    : ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2;
};

/** Medians over the rounds of one side of one (model, concurrency) cell. */
export interface AbCell {
  readonly model: string;
  readonly concurrency: number;
  readonly base: AbMedians;
  readonly head: AbMedians;
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

export function abCells(r: AbResult): AbCell[] {
  const keys = [...new Set(r.measurements.map((m) => `${m.model}\u0000${m.concurrency}`))];
  return keys.map((k) => {
    const [model, c] = k.split('\u0000') as [string, string];
    const of = (side: AbSide): AbMeasurement[] =>
      r.measurements.filter(
        (m) => m.side === side && m.model === model && m.concurrency === Number(c),
      );
    return { model, concurrency: Number(c), base: medians(of('base')), head: medians(of('head')) };
  });
}

const ratio = (head: number, base: number): string =>
  base > 0 ? `${head / base >= 1 ? '+' : ''}${((head / base - 1) * 100).toFixed(1)} %` : '–';

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
        c.base.reqPerSec.toFixed(0),
        c.head.reqPerSec.toFixed(0),
        `${c.base.p50Ms.toFixed(2)} / ${c.base.p99Ms.toFixed(2)}`,
        `${c.head.p50Ms.toFixed(2)} / ${c.head.p99Ms.toFixed(2)}`,
      ]),
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    }),
    '',
    "Where the two sides' ranges overlap, this machine cannot tell them apart: a difference " +
      "smaller than the rounds' own spread is noise, not a cost.",
    '',
  ];
}
