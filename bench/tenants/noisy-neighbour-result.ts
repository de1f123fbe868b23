// The noisy-neighbour bench's result (bench/results/noisy-neighbour.json) and its section of
// bench/RESULTS.md: tenant B's latency alone, then beside a tenant A sending 10× its quota, with
// tenant quotas off and on; A's admitted rate against its configured one.

import type { MachineInfo } from '../measure/machine-info.js';
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
  readonly phases: readonly NoisyPhase[];
  /** What the run saw of the machine (other processes competing for its cores). */
  readonly note: string;
}

const ms = (x: number): string => x.toFixed(2);

export function noisySection(r: NoisyResult, source: string): string[] {
  const alone = r.phases.find((p) => p.name === 'B alone');
  const rows = r.phases.map((p) => [
    p.name,
    `${ms(p.b.p50Ms)} / ${ms(p.b.p99Ms)}`,
    alone === undefined ? '–' : `${(p.b.p99Ms / alone.b.p99Ms).toFixed(2)}×`,
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
  ];
}
