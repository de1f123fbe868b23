// The per-stage timeline of infernode's requests (`--trace`), as a table: one row per stage, and
// for every traced target and level its p50 and p99 in µs (the time from the previous stage), so a
// change shows which stage it moved. The last row is the whole of the server's time, receive to send.

import { levelName } from './format.js';
import type { BenchResult } from './result-types.js';
import { alignColumns, type Table } from './tables.js';

const us = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** null when no level of the run recorded stages. */
export function stageTable(result: BenchResult): Table | null {
  const columns = result.targets.flatMap((t) =>
    t.levels.flatMap((l) =>
      l.stages === undefined ? [] : [{ label: `${t.label} ${levelName(l.mode, l.value)}`, l }],
    ),
  );
  const first = columns[0]?.l.stages;
  if (first === undefined) return null;
  const headers = ['stage'];
  for (const c of columns) headers.push(`${c.label} p50 µs`, 'p99 µs');
  const rows = first.stages.map((row, i) => {
    const out: string[] = [row.stage];
    for (const c of columns) {
      const r = c.l.stages?.stages[i];
      if (r === undefined || r.count === 0) out.push('–', '–');
      else out.push(us(r.p50Us), us(r.p99Us));
    }
    return out;
  });
  rows.push([
    'traced requests',
    ...columns.flatMap((c) => [String(c.l.stages?.requests ?? 0), '']),
  ]);
  return { headers, rows, align: alignColumns(headers.length) };
}

export const STAGE_NOTE =
  "Each stage's time runs from the previous stage to it (server clock, --trace-stages): " +
  'receive is the handler call with the body in; parse decodes it; validate checks it against the ' +
  'config; enqueue and dispatch are the scheduler shell; post is the batch copied into shared ' +
  'memory and handed to the worker; worker-start is the thread wake-up and message delivery; ' +
  'run-start builds ORT tensors; run-end is session.run; worker-end copies outputs; resume is the ' +
  'reply reaching the main thread; settle, respond, encode and send are the way back out. ' +
  'Percentiles of each stage are taken separately, so they do not add up to the total.';
