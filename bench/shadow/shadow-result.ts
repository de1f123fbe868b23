// The shadow-overhead bench's result (bench/results/shadow-overhead.json) and its section of
// bench/RESULTS.md: mlp's p50/p99 with a shadow version re-running 10 % of its requests against the
// same model with the shadow loaded and idle (share 0), in alternating rounds.

import type { MachineInfo } from '../measure/machine-info.js';
import { commitLineOf, machineLineOf } from '../report/run-summary.js';
import { markdownTable } from '../report/tables.js';

export const SHADOW_SCHEMA = 'infernode-bench-shadow-overhead/1';

export interface ShadowRound {
  readonly share: number;
  readonly round: number;
  readonly requests: number;
  readonly errors: number;
  readonly perSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface ShadowArm {
  readonly share: number;
  /** Over every round of the arm pooled. */
  readonly requests: number;
  readonly errors: number;
  readonly perSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** infernode_shadow_requests_total by outcome at the end of the run. */
  readonly shadow: { readonly compared: number; readonly dropped: number; readonly failed: number };
}

export interface ShadowResult {
  readonly schema: typeof SHADOW_SCHEMA;
  readonly startedAt: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly frontEnd: string | null;
  readonly concurrency: number;
  readonly measureSecs: number;
  readonly rounds: readonly ShadowRound[];
  readonly baseline: ShadowArm;
  readonly shadowed: ShadowArm;
  /** shadowed p99 / baseline p99 - 1. */
  readonly p99Rise: number;
  /** The target for p99Rise. */
  readonly target: number;
}

const ms = (x: number): string => x.toFixed(2);
const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

export function shadowSection(r: ShadowResult, source: string): string[] {
  const arm = (name: string, a: ShadowArm): string[] => [
    name,
    String(a.requests),
    a.perSec.toFixed(0),
    ms(a.p50Ms),
    ms(a.p99Ms),
    String(a.errors),
    `${a.shadow.compared} / ${a.shadow.dropped} / ${a.shadow.failed}`,
  ];
  return [
    '## Shadow versions: `mlp` with 10 % of its requests re-run on a shadow',
    '',
    `${machineLineOf(r.machine)}; ${commitLineOf(r.machine)}; front end ${r.frontEnd ?? '?'}. ` +
      `\`${r.command}\` (${r.concurrency} requests in flight, ${r.measureSecs} s per round, ` +
      'rounds alternating between two servers in ABBA order, client and server on the same cores of a shared, ' +
      `noisy machine), from [${source}](${source.replace(/^bench\//, '')}).`,
    '',
    'Both servers load `mlp` version 1 (serving) and the same export as version 2 (its shadow); ' +
      'the baseline has `shadow_share` 0, so only the re-runs differ. Requests are one row each, ' +
      "version-less (always answered by version 1). Shadow outcomes are the servers' " +
      '`infernode_shadow_requests_total` at the end.',
    '',
    markdownTable({
      headers: [
        'shadow_share',
        'requests',
        'req/s',
        'p50 ms',
        'p99 ms',
        'errors',
        'compared / dropped / failed',
      ],
      rows: [arm(String(r.baseline.share), r.baseline), arm(String(r.shadowed.share), r.shadowed)],
      align: ['right', 'right', 'right', 'right', 'right', 'right', 'right'],
    }),
    '',
    'Round by round (req/s / p50 ms / p99 ms); odd rounds measure the baseline first, even rounds ' +
      'the shadowed server first:',
    '',
    markdownTable({
      headers: ['round', 'shadow_share 0', `shadow_share ${r.shadowed.share}`, 'p99 ratio'],
      rows: [...new Set(r.rounds.map((x) => x.round))].map((n) => {
        const b = r.rounds.find((x) => x.round === n && x.share === 0);
        const sh = r.rounds.find((x) => x.round === n && x.share !== 0);
        const cell = (x: ShadowRound | undefined): string =>
          x === undefined ? '–' : `${x.perSec.toFixed(0)} / ${ms(x.p50Ms)} / ${ms(x.p99Ms)}`;
        return [
          String(n),
          cell(b),
          cell(sh),
          b === undefined || sh === undefined ? '–' : `${(sh.p99Ms / b.p99Ms).toFixed(2)}×`,
        ];
      }),
      align: ['right', 'right', 'right', 'right'],
    }),
    '',
    `p99 over all rounds with the shadow: ${pct(r.p99Rise)} against the baseline (target ≤ ` +
      `${pct(r.target)}). ${spreadNote(r)}`,
    '',
  ];
}

/** Whether the rounds' own spread lets the pooled p99s say anything at the target's scale. */
function spreadNote(r: ShadowResult): string {
  const base = r.rounds.filter((x) => x.share === 0).map((x) => x.p99Ms);
  const lo = Math.min(...base);
  const hi = Math.max(...base);
  const spread = lo > 0 ? hi / lo - 1 : Infinity;
  return spread > r.target
    ? `The baseline's own p99 moved by ${pct(spread)} between its rounds (${ms(lo)} to ${ms(hi)} ms), ` +
        'more than the target: on this machine the run cannot tell a 5 % rise from noise.'
    : `The baseline's own p99 moved by ${pct(spread)} between its rounds, within the target: ` +
        (r.p99Rise <= r.target
          ? 'the target is met on this run.'
          : 'the target is not met on this run.');
}
