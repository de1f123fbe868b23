// The comparison a `bench:compare` run exists for: per load level, req/s, p50 and p99 of raw ORT,
// the naive Fastify server and infernode, and the ratios infernode/naive and infernode/raw. Also
// the tables every report shows: the machine's limits and infernode's server-side breakdown.

import { cores, levelName, ms, rate } from './format.js';
import type { BenchResult, TargetResult } from './result-types.js';
import { findTarget, flagged, sideBySideTable } from './side-by-side.js';
import { alignColumns, type Table } from './tables.js';

const COLUMNS = [
  { id: 'raw-ort', label: 'raw ORT' },
  { id: 'naive-fastify', label: 'naive Fastify' },
  { id: 'naive-fastify-1t', label: 'naive Fastify 1 thread' },
  { id: 'uws-ceiling', label: 'uWS ceiling' },
  { id: 'infernode-unbatched', label: 'infernode unbatched' },
  { id: 'infernode', label: 'infernode' },
  { id: 'infernode-binary', label: 'infernode HTTP binary' },
  { id: 'infernode-ws', label: 'infernode WebSocket' },
] as const;

export function comparisonTable(result: BenchResult): Table {
  const infernode = findTarget(result, 'infernode');
  const ratios: { id: string; label: string }[] = [];
  if (infernode !== undefined && findTarget(result, 'naive-fastify') !== undefined)
    ratios.push({ id: 'naive-fastify', label: 'infernode/naive' });
  if (infernode !== undefined && findTarget(result, 'naive-fastify-1t') !== undefined)
    ratios.push({ id: 'naive-fastify-1t', label: 'infernode/naive 1t' });
  if (infernode !== undefined && findTarget(result, 'raw-ort') !== undefined)
    ratios.push({ id: 'raw-ort', label: 'infernode/raw' });
  // Issue 4's targets: the front end's ceiling, and batching off (present only when run).
  if (infernode !== undefined && findTarget(result, 'uws-ceiling') !== undefined)
    ratios.push({ id: 'uws-ceiling', label: 'infernode/ceiling' });
  if (infernode !== undefined && findTarget(result, 'infernode-unbatched') !== undefined)
    ratios.push({ id: 'infernode-unbatched', label: 'infernode/unbatched' });
  return sideBySideTable(
    result,
    COLUMNS,
    ratios.map((r) => ({ label: r.label, over: infernode, under: findTarget(result, r.id) })),
  );
}

/** The raw-ORT fixed points: what one session, and every core, can do with no server at all. */
export function limitsTable(result: BenchResult): Table | null {
  const limits = result.targets.filter((t) => t.kind === 'raw-ort-limit');
  if (limits.length === 0) return null;
  const batch = result.model.batchSize;
  const rows = limits.flatMap((t) =>
    t.levels.map((l) => [
      t.label,
      flagged(rate(l.summary.inferPerSec), l),
      rate(l.summary.reqPerSec),
      ms(l.summary.latency.p50Us),
      ms(l.summary.latency.p99Us),
      cores(l.summary.cpu.generator),
    ]),
  );
  return {
    headers: ['raw ORT', `rows/s (batch ${batch})`, 'runs/s', 'p50 ms', 'p99 ms', 'cores used'],
    rows,
    align: ['left', 'right', 'right', 'right', 'right', 'right'],
  };
}

/** Per level of one HTTP target: client figures, the server's breakdown, and who used the CPU. */
export function levelTable(t: TargetResult): Table {
  const headers = [
    'level',
    'req/s',
    'infer/s',
    'avg ms',
    'p50',
    'p90',
    'p95',
    'p99',
    'p99.9',
    'max',
    'errors',
    'queue ms',
    'compute in/infer/out ms',
    'avg batch',
    'server cores',
    'generator cores',
    'other cores',
  ];
  const rows = t.levels.map((l) => {
    const s = l.summary;
    const v = s.server;
    return [
      flagged(levelName(l.mode, l.value), l),
      rate(s.reqPerSec),
      rate(s.inferPerSec),
      ms(s.latency.avgUs),
      ms(s.latency.p50Us),
      ms(s.latency.p90Us),
      ms(s.latency.p95Us),
      ms(s.latency.p99Us),
      ms(s.latency.p999Us),
      ms(s.latency.maxUs),
      String(s.errors),
      v === null ? '–' : ms(v.avgQueueUs),
      v === null
        ? '–'
        : `${ms(v.avgComputeInputUs)} / ${ms(v.avgComputeInferUs)} / ${ms(v.avgComputeOutputUs)}`,
      v === null ? '–' : v.avgBatchSize.toFixed(2),
      cores(s.cpu.server),
      cores(s.cpu.generator),
      cores(s.cpu.other),
    ];
  });
  return { headers, rows, align: alignColumns(headers.length) };
}

/** Warnings a reader must see next to the figures. */
export function caveats(result: BenchResult): string[] {
  const out: string[] = [];
  const unstable = result.targets.flatMap((t) =>
    t.levels.filter((l) => !l.stable).map((l) => `${t.label} at ${levelName(l.mode, l.value)}`),
  );
  if (unstable.length > 0) {
    out.push(
      `figures marked * did not become stable within --max-trials ${result.options.maxTrials} windows (they are the last 3 windows): ${unstable.join('; ')}`,
    );
  }
  for (const t of result.targets) {
    if (t.transport === 'in-process') continue;
    const bound = t.levels.filter((l) => l.summary.cpu.generatorPerThread >= 0.9);
    if (bound.length > 0) {
      out.push(
        `${t.label}: the load generator used >= 0.9 core per thread at ${bound.map((l) => levelName(l.mode, l.value)).join(', ')}; ` +
          'the generator may have been the bottleneck (try --generator-threads)',
      );
    }
    const errors = t.levels.filter((l) => l.summary.errors > 0);
    if (errors.length > 0) {
      out.push(
        `${t.label}: failed requests at ${errors.map((l) => `${levelName(l.mode, l.value)} (${l.summary.errors})`).join(', ')}`,
      );
    }
  }
  const other = result.targets.flatMap((t) => t.levels.map((l) => l.summary.cpu.other ?? 0));
  const maxOther = Math.max(0, ...other);
  if (maxOther >= 0.25) {
    out.push(
      `other processes used up to ${maxOther.toFixed(2)} cores during some levels: figures are noisier than on an idle machine`,
    );
  }
  return out;
}
