// Issue 5's comparison: infernode over HTTP JSON, HTTP binary and WebSocket msgpack at the same
// levels (`bench:compare --targets protocols`), with the ratios to HTTP JSON, and its sections of
// bench/RESULTS.md (one per published protocols-<model>.json).

import { caveats } from './comparison.js';
import type { BenchResult } from './result-types.js';
import { commitLine, machineLine, workloadLine } from './run-summary.js';
import { findTarget, levelAt, sideBySideTable } from './side-by-side.js';
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
  return RATIOS.some((r) => findTarget(result, r.id) !== undefined);
}

export function protocolTable(result: BenchResult): Table {
  const json = findTarget(result, JSON_ID);
  const ratios =
    json === undefined ? [] : RATIOS.filter((r) => findTarget(result, r.id) !== undefined);
  return sideBySideTable(
    result,
    COLUMNS,
    ratios.map((r) => ({ label: r.label, over: findTarget(result, r.id), under: json })),
  );
}

/** Whether the measured levels meet issue 5's target; null when the run cannot say. */
export function wsTargetVerdict(result: BenchResult): string | null {
  const json = findTarget(result, JSON_ID);
  const ws = findTarget(result, 'infernode-ws');
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
