// Issues 5 and 10's comparison: infernode over HTTP JSON, HTTP binary, WebSocket msgpack, gRPC
// unary and gRPC stream at the same levels (`bench:compare --targets protocols`), with the ratios
// the issues' targets are about, the verdict on each target, and its sections of bench/RESULTS.md
// (one per published protocols-<model>.json).

import { caveats } from './comparison.js';
import { levelName } from './format.js';
import type { BenchResult } from './result-types.js';
import { commitLine, machineLine, workloadLine } from './run-summary.js';
import { findTarget, levelAt, sideBySideTable } from './side-by-side.js';
import { alignColumns, markdownTable, type Table } from './tables.js';

const JSON_ID = 'infernode';
const BINARY_ID = 'infernode-binary';
const WS_ID = 'infernode-ws';
const GRPC_ID = 'infernode-grpc';
const STREAM_ID = 'infernode-grpc-stream';
const COLUMNS = [
  { id: JSON_ID, label: 'HTTP JSON' },
  { id: BINARY_ID, label: 'HTTP binary' },
  { id: WS_ID, label: 'WebSocket msgpack' },
  { id: GRPC_ID, label: 'gRPC unary' },
  { id: STREAM_ID, label: 'gRPC stream' },
] as const;
/** Each ratio divides `over`'s figures by `under`'s: the comparisons the targets are about. */
const RATIOS = [
  { over: WS_ID, under: JSON_ID, label: 'ws/json' },
  { over: BINARY_ID, under: JSON_ID, label: 'binary/json' },
  { over: GRPC_ID, under: BINARY_ID, label: 'grpc/binary' },
  { over: STREAM_ID, under: WS_ID, label: 'stream/ws' },
] as const;

/** Issue 5's target: WebSocket at least this many times HTTP JSON's req/s on `simple`. */
export const WS_TARGET_RATIO = 1.5;
export const WS_TARGET_MODEL = 'simple';
/** Issue 10's targets, on every model: gRPC unary at least HTTP binary's req/s ... */
export const GRPC_TARGET_RATIO = 1;
/** ... and the gRPC stream at least 90 % of the WebSocket's. */
export const STREAM_TARGET_RATIO = 0.9;

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
  return COLUMNS.some((c) => c.id !== JSON_ID && findTarget(result, c.id) !== undefined);
}

/** The ratios whose two transports both ran. */
function presentRatios(result: BenchResult): (typeof RATIOS)[number][] {
  return RATIOS.filter(
    (r) => findTarget(result, r.over) !== undefined && findTarget(result, r.under) !== undefined,
  );
}

export function protocolTable(result: BenchResult): Table {
  return sideBySideTable(
    result,
    COLUMNS,
    presentRatios(result).map((r) => ({
      label: r.label,
      over: findTarget(result, r.over),
      under: findTarget(result, r.under),
    })),
  );
}

/**
 * CPU time per request, µs, for each transport at each level: the server's (from /proc, all its
 * threads) and the load generator's. Throughput on a shared machine depends on both; this shows
 * what one request costs each side, whatever the other did.
 */
export function protocolCpuTable(result: BenchResult): Table {
  const present = COLUMNS.flatMap((c) => {
    const t = findTarget(result, c.id);
    return t === undefined ? [] : [{ label: c.label, t }];
  });
  const levels = present[0]?.t.levels ?? [];
  const headers = ['level'];
  for (const c of present) headers.push(`${c.label} server µs/req`, 'generator µs/req');
  const perRequest = (coresUsed: number | null, reqPerSec: number): string =>
    coresUsed === null || reqPerSec === 0 ? '–' : String(Math.round((coresUsed * 1e6) / reqPerSec));
  const rows = levels.map((first) => {
    const row = [levelName(first.mode, first.value)];
    for (const c of present) {
      const l = levelAt(c.t, first.value);
      if (l === undefined) row.push('–', '–');
      else
        row.push(
          perRequest(l.summary.cpu.server, l.summary.reqPerSec),
          perRequest(l.summary.cpu.generator, l.summary.reqPerSec),
        );
    }
    return row;
  });
  return { headers, rows, align: alignColumns(headers.length) };
}

/**
 * `over`'s req/s divided by `under`'s at each level they share, each marked met or not met against
 * `min`; null when the run measured neither pair of figures.
 */
function ratioVerdict(
  result: BenchResult,
  overId: string,
  underId: string,
  min: number,
  claim: string,
): string | null {
  const over = findTarget(result, overId);
  const under = findTarget(result, underId);
  if (over === undefined || under === undefined) return null;
  const parts = over.levels.flatMap((l) => {
    const base = levelAt(under, l.value);
    if (base === undefined || base.summary.reqPerSec === 0) return [];
    const r = l.summary.reqPerSec / base.summary.reqPerSec;
    const verdict = r >= min ? 'met' : 'not met';
    return [
      `${r.toFixed(2)}× at ${l.mode === 'concurrency' ? 'concurrency' : 'rate'} ${l.value} (${verdict})`,
    ];
  });
  if (parts.length === 0) return null;
  return `Target: ${claim} — ${parts.join(', ')}.`;
}

/** Whether the measured levels meet issue 5's target; null when the run cannot say. */
export function wsTargetVerdict(result: BenchResult): string | null {
  if (result.model.name !== WS_TARGET_MODEL) return null;
  return ratioVerdict(
    result,
    WS_ID,
    JSON_ID,
    WS_TARGET_RATIO,
    `WebSocket at least ${WS_TARGET_RATIO}× HTTP JSON req/s on \`${WS_TARGET_MODEL}\``,
  );
}

/** Issue 10's first target: gRPC unary serves at least HTTP binary's req/s. */
export function grpcTargetVerdict(result: BenchResult): string | null {
  return ratioVerdict(
    result,
    GRPC_ID,
    BINARY_ID,
    GRPC_TARGET_RATIO,
    `gRPC unary at least HTTP binary's req/s on \`${result.model.name}\``,
  );
}

/** Issue 10's second target: the gRPC stream serves at least 90 % of the WebSocket's req/s. */
export function streamTargetVerdict(result: BenchResult): string | null {
  return ratioVerdict(
    result,
    STREAM_ID,
    WS_ID,
    STREAM_TARGET_RATIO,
    `gRPC stream at least ${STREAM_TARGET_RATIO * 100} % of WebSocket msgpack's req/s on \`${result.model.name}\``,
  );
}

/** Every target verdict the run can give, one line each. */
export function targetVerdicts(result: BenchResult): string[] {
  return [wsTargetVerdict(result), grpcTargetVerdict(result), streamTargetVerdict(result)].filter(
    (v): v is string => v !== null,
  );
}

const RATIO_NOTE =
  'Each ratio is the first transport divided by the second (json: HTTP JSON, binary: HTTP ' +
  'binary, ws: WebSocket msgpack, grpc: gRPC unary, stream: gRPC stream): req/s above 1× means ' +
  'the first served more, p99 below 1× means it had the lower tail latency. Each transport ran ' +
  'against its own freshly started infernode, one after another.';

const CPU_NOTE =
  'CPU time per request: the server process (all its threads) and the load generator, each ' +
  'divided by the requests served; on a shared machine throughput depends on both.';

/** "HTTP JSON, HTTP binary and WebSocket msgpack": the transports a run measured. */
function transportList(result: BenchResult): string {
  const labels = COLUMNS.filter((c) => findTarget(result, c.id) !== undefined).map((c) => c.label);
  return labels.length > 1
    ? `${labels.slice(0, -1).join(', ')} and ${labels.at(-1) ?? ''}`
    : (labels[0] ?? '');
}

export interface ResultFile {
  readonly result: BenchResult;
  /** Repository-relative path of the JSON it came from. */
  readonly source: string;
}

/** RESULTS.md sections for published protocol comparisons, one per model. */
export function protocolSections(files: readonly ResultFile[]): string[] {
  const out: string[] = [];
  for (const { result, source } of files) {
    out.push(`## Transports on \`${result.model.name}\`: ${transportList(result)}`, '');
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
    out.push(markdownTable(protocolCpuTable(result)), '');
    out.push(CPU_NOTE, '');
    for (const verdict of targetVerdicts(result)) out.push(verdict, '');
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
