// The noisy-neighbour bench's result (bench/results/noisy-neighbour.json) and its section of
// bench/RESULTS.md: tenant B's latency alone, then beside a tenant A sending 10× its quota, with
// tenant quotas off and on; A's admitted rate against its configured one.

import type { MachineInfo } from '../measure/machine-info.js';
import { median } from '../measure/median.js';
import { commitLineOf, machineLineOf } from '../report/run-summary.js';
import { markdownTable } from '../report/tables.js';

export const NOISY_SCHEMA = 'infernode-bench-noisy-neighbour/1';

export type NoisyPhaseName = 'B alone' | 'A + B, quotas off' | 'A + B, quotas on';

export interface TenantFigures {
  /** Requests sent in the measured window (open loop, at a fixed rate). */
  readonly sent: number;
  /** Answered 200. */
  readonly ok: number;
  /** Answered 429 (over the tenant's quota). */
  readonly throttled: number;
  /** Any other answer or a failed connection. */
  readonly errors: number;
  /** ok / measured seconds. */
  readonly admittedPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface NoisyPhase {
  readonly name: NoisyPhaseName;
  readonly quotas: boolean;
  readonly a: TenantFigures | null;
  readonly b: TenantFigures;
}

export interface NoisyResult {
  readonly schema: typeof NOISY_SCHEMA;
  readonly startedAt: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly phaseSecs: number;
  /** The quota file's rps for A and B; A sends 10× its own, B half its own. */
  readonly quotaRps: { readonly a: number; readonly b: number };
  readonly sendRps: { readonly a: number; readonly b: number };
  /** The phases of one round, or with `rounds`, each phase's medians over the rounds. */
  readonly phases: readonly NoisyPhase[];
  /**
   * With --rounds N > 1: every round's phases as measured (the phase order rotates each round,
   * so drift falls on every phase). Absent in single-round files.
   */
  readonly rounds?: readonly (readonly NoisyPhase[])[];
  /** What the run saw of the machine (other processes competing for its cores). */
  readonly note: string;
}

const ms = (x: number): string => x.toFixed(2);

/** A tenant's figures over rounds: latencies and rates as medians, counts as totals. */
function combine(fs: readonly TenantFigures[]): TenantFigures {
  const sum = (k: 'sent' | 'ok' | 'throttled' | 'errors') => fs.reduce((n, f) => n + f[k], 0);
  return {
    sent: sum('sent'),
    ok: sum('ok'),
    throttled: sum('throttled'),
    errors: sum('errors'),
    admittedPerSec: median(fs.map((f) => f.admittedPerSec)),
    p50Ms: median(fs.map((f) => f.p50Ms)),
    p99Ms: median(fs.map((f) => f.p99Ms)),
  };
}

/** Each phase's medians over the rounds, in the order of the first round's names. */
export function medianPhases(rounds: readonly (readonly NoisyPhase[])[]): NoisyPhase[] {
  const names: NoisyPhaseName[] = ['B alone', 'A + B, quotas off', 'A + B, quotas on'];
  return names.flatMap((name) => {
    const ps = rounds.flatMap((r) => r.filter((p) => p.name === name));
    const first = ps[0];
    if (first === undefined) return [];
    const as = ps.flatMap((p) => (p.a === null ? [] : [p.a]));
    return [
      {
        name,
        quotas: first.quotas,
        a: as.length === 0 ? null : combine(as),
        b: combine(ps.map((p) => p.b)),
      },
    ];
  });
}

/** Per round, B's p99 in `name` over its p99 alone in the same round. */
export function roundRatios(
  rounds: readonly (readonly NoisyPhase[])[],
  name: NoisyPhaseName,
): number[] {
  return rounds.flatMap((r) => {
    const alone = r.find((p) => p.name === 'B alone');
    const other = r.find((p) => p.name === name);
    return alone === undefined || other === undefined ? [] : [other.b.p99Ms / alone.b.p99Ms];
  });
}

function roundsLines(r: NoisyResult): string[] {
  const rounds = r.rounds ?? [];
  if (rounds.length < 2) return [];
  const list = (xs: readonly number[]) => xs.map((x) => `${x.toFixed(2)}×`).join(', ');
  const on = roundRatios(rounds, 'A + B, quotas on');
  const off = roundRatios(rounds, 'A + B, quotas off');
  const alone = rounds.flatMap((ps) =>
    ps.filter((p) => p.name === 'B alone').map((p) => p.b.p99Ms),
  );
  return [
    `${rounds.length} rounds, the phase order rotated each round; the table gives each phase's ` +
      'medians over the rounds (counts summed), and "B p99 / alone" is the median of the ' +
      "rounds' own ratios (each against B alone in the same round). Per round, quotas on: " +
      `${list(on)}; quotas off: ${list(off)}. B's p99 alone ranged ` +
      `${ms(Math.min(...alone))}–${ms(Math.max(...alone))} ms over the rounds.`,
    '',
  ];
}

export function noisySection(r: NoisyResult, source: string): string[] {
  const alone = r.phases.find((p) => p.name === 'B alone');
  const rounds = r.rounds ?? [];
  const ratio = (p: NoisyPhase): string => {
    if (rounds.length >= 2) return `${median(roundRatios(rounds, p.name)).toFixed(2)}×`;
    return alone === undefined ? '–' : `${(p.b.p99Ms / alone.b.p99Ms).toFixed(2)}×`;
  };
  const rows = r.phases.map((p) => [
    p.name,
    `${ms(p.b.p50Ms)} / ${ms(p.b.p99Ms)}`,
    ratio(p),
    `${p.b.ok} / ${p.b.throttled} / ${p.b.errors}`,
    p.a === null
      ? '–'
      : `${p.a.admittedPerSec.toFixed(2)} (${((p.a.admittedPerSec / r.quotaRps.a - 1) * 100).toFixed(1)} %)`,
    p.a === null ? '–' : String(p.a.throttled),
    p.a === null ? '–' : String(p.a.errors),
  ]);
  return [
    '## Noisy neighbour: tenant quotas',
    '',
    `${machineLineOf(r.machine)}; ${commitLineOf(r.machine)}. \`${r.command}\` (${r.phaseSecs} s ` +
      `per phase, open loop, client and server on the same cores), from [${source}](${source.replace(/^bench\//, '')}).`,
    '',
    `Tenant A's quota is ${r.quotaRps.a} requests/s and it sends ${r.sendRps.a}/s; tenant B's ` +
      `quota is ${r.quotaRps.b}/s and it sends ${r.sendRps.b}/s, one \`mlp\` row per request. ` +
      '"A admitted/s" is A\'s 200 answers per second over the phase, against its quota in brackets. ' +
      r.note,
    '',
    markdownTable({
      headers: [
        'phase',
        'B p50 / p99 ms',
        'B p99 / alone',
        'B ok / 429 / errors',
        'A admitted/s (vs quota)',
        'A throttled',
        'A errors',
      ],
      rows,
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    }),
    '',
    ...roundsLines(r),
  ];
}
