// The ensemble-overhead bench's result (bench/results/ensemble-overhead.json) and its section of
// bench/RESULTS.md: the bundled `sentiment` ensemble against a client calling its three steps one
// by one, at each concurrency.

import type { MachineInfo } from '../measure/machine-info.js';
import { commitLineOf, machineLineOf } from '../report/run-summary.js';
import { markdownTable } from '../report/tables.js';

export const ENSEMBLE_SCHEMA = 'infernode-bench-ensemble-overhead/1';

export type PipelineMode = 'ensemble' | 'steps';

export interface EnsembleCell {
  readonly mode: PipelineMode;
  readonly concurrency: number;
  /** Pipelines answered (one ensemble request, or three step requests) in the window. */
  readonly pipelines: number;
  readonly errors: number;
  readonly perSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface EnsembleResult {
  readonly schema: typeof ENSEMBLE_SCHEMA;
  readonly startedAt: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly frontEnd: string | null;
  readonly measureSecs: number;
  readonly cells: readonly EnsembleCell[];
}

const ms = (x: number): string => x.toFixed(2);

export function ensembleSection(r: EnsembleResult, source: string): string[] {
  const rows = [...new Set(r.cells.map((c) => c.concurrency))].map((c) => {
    const e = r.cells.find((x) => x.concurrency === c && x.mode === 'ensemble');
    const s = r.cells.find((x) => x.concurrency === c && x.mode === 'steps');
    return [
      String(c),
      e === undefined ? '–' : `${e.perSec.toFixed(0)} / ${ms(e.p50Ms)} / ${ms(e.p99Ms)}`,
      s === undefined ? '–' : `${s.perSec.toFixed(0)} / ${ms(s.p50Ms)} / ${ms(s.p99Ms)}`,
      e === undefined || s === undefined ? '–' : `${(e.p50Ms / s.p50Ms).toFixed(2)}×`,
      e === undefined || s === undefined ? '–' : `${(e.perSec / s.perSec).toFixed(2)}×`,
      String((e?.errors ?? 0) + (s?.errors ?? 0)),
    ];
  });
  return [
    '## Ensembles: `sentiment` against its three steps called one by one',
    '',
    `${machineLineOf(r.machine)}; ${commitLineOf(r.machine)}; front end ${r.frontEnd ?? '?'}. ` +
      `\`${r.command}\` (${r.measureSecs} s per cell, client and server on the same cores), ` +
      `from [${source}](${source.replace(/^bench\//, '')}).`,
    '',
    'Each cell: pipelines per second / p50 ms / p99 ms. An ensemble pipeline is one HTTP request ' +
      'to `sentiment`; a steps pipeline is three (`sentiment_tokenizer`, then ' +
      '`sentiment_classifier` with its token ids, then `sentiment_postprocess` with its logits), ' +
      'each answer parsed and fed to the next request by the client, as a client without ensembles ' +
      'would do it.',
    '',
    markdownTable({
      headers: [
        'clients',
        'ensemble',
        'steps by the client',
        'p50 ensemble / steps',
        'throughput ensemble / steps',
        'errors',
      ],
      rows,
      align: ['right', 'right', 'right', 'right', 'right', 'right'],
    }),
    '',
  ];
}
