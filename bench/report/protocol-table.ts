// Issue 5's comparison: infernode over HTTP JSON, HTTP binary and WebSocket msgpack at the same
// levels (`bench:compare --targets protocols`), with the ratios to HTTP JSON, and its sections of
// bench/RESULTS.md (one per published protocols-<model>.json).

import { caveats, flagged, levelAt } from './comparison.js';
import { ms, rate, ratio } from './format.js';
import type { BenchResult, TargetResult } from './result-types.js';
import { commitLine, machineLine, workloadLine } from './run-summary.js';
import { markdownTable, type Table } from './tables.js';

const JSON_ID = 'infernode';
const COLUMNS = [
  { id: JSON_ID, label: 'HTTP JSON' },
  { id: 'infernode-binary', label: 'HTTP binary' },
  { id: 'infernode-ws', label: 'WebSocket msgpack' },
] as const;
const RATIOS = [
  { id: 'infernode-ws', label: 'ws/json' },
  { id: 'infernode-binary', label: 'binary/json' },
] as const;

/** Issue 5's target: WebSocket at least this many times HTTP JSON's req/s on `simple`. */
export const WS_TARGET_RATIO = 1.5;
export const WS_TARGET_MODEL = 'simple';

const find = (r: BenchResult, id: string): TargetResult | undefined =>
  r.targets.find((t) => t.id === id);

/** A run of infernode's transports only (and more than HTTP JSON): published on its own. */
export function isProtocolRun(result: BenchResult): boolean {
  const ids = result.targets.map((t) => t.id);
  return (
    result.kind === 'compare' &&
    ids.length > 0 &&
    ids.every((id) => COLUMNS.some((c) => c.id === id)) &&
    ids.some((id) => id !== JSON_ID)
  );
}

/** True when a run measured at least one transport besides HTTP JSON. */
export function hasProtocolTargets(result: BenchResult): boolean {
  return RATIOS.some((r) => find(result, r.id) !== undefined);
}

export function protocolTable(result: BenchResult): Table {
  const present = COLUMNS.filter((c) => find(result, c.id) !== undefined);
  const values = [
    ...new Set(present.flatMap((c) => find(result, c.id)?.levels.map((l) => l.value) ?? [])),
  ].sort((a, b) => a - b);
  const mode =
    present.map((c) => find(result, c.id)?.levels[0]?.mode).find((m) => m) ?? 'concurrency';
  const headers = [mode === 'concurrency' ? 'concurrency' : 'req/s offered'];
  for (const c of present) headers.push(`${c.label} req/s`, 'p50 ms', 'p99 ms');
  const json = find(result, JSON_ID);
  const ratios = json === undefined ? [] : RATIOS.filter((r) => find(result, r.id) !== undefined);
  for (const r of ratios) headers.push(`${r.label} req/s`, 'p99');
  const rows = values.map((value) => {
    const row = [String(value)];
    for (const c of present) {
      const l = levelAt(find(result, c.id), value);
      if (l === undefined) row.push('–', '–', '–');
      else
        row.push(
          flagged(rate(l.summary.reqPerSec), l),
          ms(l.summary.latency.p50Us),
          ms(l.summary.latency.p99Us),
        );
    }
    const base = levelAt(json, value)?.summary;
    for (const r of ratios) {
      const other = levelAt(find(result, r.id), value)?.summary;
      row.push(
        ratio(other?.reqPerSec, base?.reqPerSec),
        ratio(other?.latency.p99Us, base?.latency.p99Us),
      );
    }
    return row;
  });
  return { headers, rows, align: headers.map((_, i) => (i === 0 ? 'left' : 'right')) };
}

/** Whether the measured levels meet issue 5's target; null when the run cannot say. */
export function wsTargetVerdict(result: BenchResult): string | null {
  const json = find(result, JSON_ID);
  const ws = find(result, 'infernode-ws');
  if (result.model.name !== WS_TARGET_MODEL || json === undefined || ws === undefined) return null;
  const parts = ws.levels.flatMap((l) => {
    const base = levelAt(json, l.value);
    if (base === undefined || base.summary.reqPerSec === 0) return [];
    const r = l.summary.reqPerSec / base.summary.reqPerSec;
    const verdict = r >= WS_TARGET_RATIO ? 'met' : 'not met';
    return [
      `${r.toFixed(2)}× at ${l.mode === 'concurrency' ? 'concurrency' : 'rate'} ${l.value} (${verdict})`,
    ];
  });
  if (parts.length === 0) return null;
  return `Target: WebSocket at least ${WS_TARGET_RATIO}× HTTP JSON req/s on \`${WS_TARGET_MODEL}\` — ${parts.join(', ')}.`;
}

const RATIO_NOTE =
  'Ratios are the other transport divided by HTTP JSON: req/s above 1× means it served more, ' +
  'p99 below 1× means it had the lower tail latency. Each transport ran against its own freshly ' +
  'started infernode, one after another.';

export interface ResultFile {
  readonly result: BenchResult;
  /** Repository-relative path of the JSON it came from. */
  readonly source: string;
}

/** RESULTS.md sections for published protocol comparisons, one per model. */
export function protocolSections(files: readonly ResultFile[]): string[] {
  const out: string[] = [];
  for (const { result, source } of files) {
    out.push(
      `## Transports on \`${result.model.name}\`: HTTP JSON, HTTP binary and WebSocket msgpack`,
      '',
    );
    out.push(
      `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
      '',
    );
    out.push(
      `- **Machine:** ${machineLine(result)}`,
      `- **Code:** ${commitLine(result)}`,
      `- **Workload:** ${workloadLine(result)}`,
      '',
    );
    out.push(markdownTable(protocolTable(result)), '');
    out.push(RATIO_NOTE, '');
    const verdict = wsTargetVerdict(result);
    if (verdict !== null) out.push(verdict, '');
    const notes = [
      ...result.targets.flatMap((t) =>
        t.notes.length > 0 ? [`${t.label} (${t.transport}): ${t.notes.join('; ')}`] : [],
      ),
      ...caveats(result),
    ];
    if (notes.length > 0) out.push(...notes.map((n) => `- ${n}`), '');
  }
  return out;
}
