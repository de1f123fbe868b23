// The per-level table of targets side by side that both comparisons render (`bench:compare`'s
// servers and issue 5's protocols): one row per load level with each present target's req/s, p50
// and p99, then ratio columns. Which targets and which ratios stay with each comparison.

import { ms, rate, ratio } from './format.js';
import type { BenchResult, LevelResult, TargetResult } from './result-types.js';
import { alignColumns, type Table } from './tables.js';

export interface TargetColumn {
  readonly id: string;
  readonly label: string;
}

/** A req/s and p99 ratio pair: `over`'s figures divided by `under`'s at each level. */
export interface RatioColumn {
  readonly label: string;
  readonly over: TargetResult | undefined;
  readonly under: TargetResult | undefined;
}

export function findTarget(result: BenchResult, id: string): TargetResult | undefined {
  return result.targets.find((t) => t.id === id);
}

export function levelAt(t: TargetResult | undefined, value: number): LevelResult | undefined {
  return t?.levels.find((l) => l.value === value);
}

/** A figure with a trailing * when its level never became stable. */
export function flagged(text: string, level: LevelResult): string {
  return level.stable ? text : `${text}*`;
}

/** Columns whose target did not run are left out; a level a target lacks shows dashes. */
export function sideBySideTable(
  result: BenchResult,
  columns: readonly TargetColumn[],
  ratios: readonly RatioColumn[],
): Table {
  const present = columns.filter((c) => findTarget(result, c.id) !== undefined);
  const values = [
    ...new Set(present.flatMap((c) => findTarget(result, c.id)?.levels.map((l) => l.value) ?? [])),
  ].sort((a, b) => a - b);
  const mode =
    present.map((c) => findTarget(result, c.id)?.levels[0]?.mode).find((m) => m !== undefined) ??
    'concurrency';
  const headers = [mode === 'concurrency' ? 'concurrency' : 'req/s offered'];
  for (const c of present) headers.push(`${c.label} req/s`, 'p50 ms', 'p99 ms');
  for (const r of ratios) headers.push(`${r.label} req/s`, 'p99');

  const rows = values.map((value) => {
    const row = [String(value)];
    for (const c of present) {
      const l = levelAt(findTarget(result, c.id), value);
      if (l === undefined) row.push('–', '–', '–');
      else
        row.push(
          flagged(rate(l.summary.reqPerSec), l),
          ms(l.summary.latency.p50Us),
          ms(l.summary.latency.p99Us),
        );
    }
    for (const r of ratios) {
      const over = levelAt(r.over, value)?.summary;
      const under = levelAt(r.under, value)?.summary;
      row.push(
        ratio(over?.reqPerSec, under?.reqPerSec),
        ratio(over?.latency.p99Us, under?.latency.p99Us),
      );
    }
    return row;
  });
  return { headers, rows, align: alignColumns(headers.length) };
}
