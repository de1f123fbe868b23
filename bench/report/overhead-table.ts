// The per-request overhead issue's comparison: infernode against the one-thread naive Fastify
// server (a fair in-thread baseline), the uWS JSON-parse ceiling and raw ORT, with the verdict on
// each of the targets, the server's CPU per 1,000 req/s, and its sections of
// bench/RESULTS.md (one per published overhead-<model>-b<batch>-node<major>.json, so Node 20's and
// Node 24's tables stand side by side).

import { caveats } from './comparison.js';
import { levelName } from './format.js';
import type { BenchResult, LevelResult, TargetResult } from './result-types.js';
import { commitLine, machineLine, workloadLine } from './run-summary.js';
import { findTarget, levelAt, sideBySideTable } from './side-by-side.js';
import { STAGE_NOTE, stageTable } from './stage-report.js';
import { alignColumns, markdownTable, type Table } from './tables.js';

const NAIVE_1T = 'naive-fastify-1t';
const COLUMNS = [
  { id: 'raw-ort', label: 'raw ORT' },
  { id: 'naive-fastify', label: 'naive Fastify (default pool)' },
  { id: NAIVE_1T, label: 'naive Fastify 1 thread' },
  { id: 'uws-ceiling', label: 'uWS JSON-parse ceiling' },
  { id: 'infernode', label: 'infernode HTTP JSON' },
  { id: 'infernode-binary', label: 'infernode HTTP binary' },
] as const;

/** The targets. p50 at c=1 at most this multiple of the one-thread naive server's ... */
export const C1_P50_MAX_RATIO = 1.3;
/** ... at c=64 at least this share of the uWS ceiling's req/s ... */
export const C64_CEILING_MIN_RATIO = 0.8;
/** ... and this multiple of the one-thread naive server's, with a p99 no higher than its. */
export const C64_NAIVE_MIN_RATIO = 2;
/** Binary, batch 32, c=8: at least this share of raw ORT's rows/s. */
export const BATCH_RAW_MIN_RATIO = 0.7;
const BATCH_TARGET_SIZE = 32;
const BATCH_TARGET_CONCURRENCY = 8;

/** A run that measured the one-thread naive baseline: published as an overhead comparison. */
export function isOverheadRun(result: BenchResult): boolean {
  return result.kind === 'compare' && findTarget(result, NAIVE_1T) !== undefined;
}

/** `overhead-<model>-b<batch>-node<major>.json`. */
export function overheadFileName(result: BenchResult): string {
  const major = /^v?(\d+)/.exec(result.machine.node)?.[1] ?? 'x';
  return `overhead-${result.model.name}-b${result.model.batchSize}-node${major}.json`;
}

export function overheadTable(result: BenchResult): Table {
  const infernode = findTarget(result, 'infernode');
  const ratios = [
    { label: 'infernode/naive 1t', over: infernode, under: findTarget(result, NAIVE_1T) },
    { label: 'infernode/ceiling', over: infernode, under: findTarget(result, 'uws-ceiling') },
    {
      label: 'binary/raw',
      over: findTarget(result, 'infernode-binary'),
      under: findTarget(result, 'raw-ort'),
    },
  ].filter((r) => r.over !== undefined && r.under !== undefined);
  return sideBySideTable(result, COLUMNS, ratios);
}

/** Cores the server used per 1,000 req/s, or '–' when its CPU time was not recorded. */
function coresPerKilo(l: LevelResult | undefined): string {
  const s = l?.summary;
  if (s === undefined || s.cpu.server === null || s.reqPerSec === 0) return '–';
  return ((s.cpu.server * 1000) / s.reqPerSec).toFixed(3);
}

/** Server cores per 1,000 req/s for every server target at every level (raw ORT has no server). */
export function cpuPerKiloTable(result: BenchResult): Table {
  const present = COLUMNS.flatMap((c) => {
    const t = findTarget(result, c.id);
    return t === undefined || t.kind === 'raw-ort' ? [] : [{ label: c.label, t }];
  });
  const levels = present[0]?.t.levels ?? [];
  const headers = ['level', ...present.map((c) => `${c.label} cores per 1k req/s`)];
  const rows = levels.map((first) => [
    levelName(first.mode, first.value),
    ...present.map((c) => coresPerKilo(levelAt(c.t, first.value))),
  ]);
  return { headers, rows, align: alignColumns(headers.length) };
}

const met = (ok: boolean): string => (ok ? 'met' : 'not met');
const x = (r: number): string => `${r.toFixed(2)}×`;

function concurrencyLevel(t: TargetResult | undefined, c: number): LevelResult | undefined {
  return t?.levels.find((l) => l.mode === 'concurrency' && l.value === c);
}

/** Every verdict on the targets that the run measured, one line each. */
export function overheadVerdicts(result: BenchResult): string[] {
  const out: string[] = [];
  const model = `\`${result.model.name}\``;
  const infernode = findTarget(result, 'infernode');
  const naive = findTarget(result, NAIVE_1T);
  const ceiling = findTarget(result, 'uws-ceiling');
  const one = concurrencyLevel(infernode, 1)?.summary;
  const naiveOne = concurrencyLevel(naive, 1)?.summary;
  if (one !== undefined && naiveOne !== undefined && naiveOne.latency.p50Us > 0) {
    const r = one.latency.p50Us / naiveOne.latency.p50Us;
    out.push(
      `Target: ${model}, JSON, c=1: p50 at most ${C1_P50_MAX_RATIO}× the one-thread naive server's — ` +
        `${x(r)} (${(one.latency.p50Us / 1000).toFixed(3)} vs ${(naiveOne.latency.p50Us / 1000).toFixed(3)} ms) (${met(r <= C1_P50_MAX_RATIO)}).`,
    );
  }
  const many = concurrencyLevel(infernode, 64)?.summary;
  const ceilingMany = concurrencyLevel(ceiling, 64)?.summary;
  if (many !== undefined && ceilingMany !== undefined && ceilingMany.reqPerSec > 0) {
    const r = many.reqPerSec / ceilingMany.reqPerSec;
    out.push(
      `Target: ${model}, JSON, c=64: at least ${C64_CEILING_MIN_RATIO}× the uWS JSON-parse ceiling's req/s — ` +
        `${x(r)} (${met(r >= C64_CEILING_MIN_RATIO)}).`,
    );
  }
  const naiveMany = concurrencyLevel(naive, 64)?.summary;
  if (many !== undefined && naiveMany !== undefined && naiveMany.reqPerSec > 0) {
    const r = many.reqPerSec / naiveMany.reqPerSec;
    const p99 = many.latency.p99Us / Math.max(naiveMany.latency.p99Us, 1);
    out.push(
      `Target: ${model}, JSON, c=64: at least ${C64_NAIVE_MIN_RATIO}× the one-thread naive server's req/s — ` +
        `${x(r)} (${met(r >= C64_NAIVE_MIN_RATIO)}); p99 no higher than its — ${x(p99)} (${met(p99 <= 1)}).`,
    );
  }
  if (result.model.batchSize === BATCH_TARGET_SIZE) {
    const binary = concurrencyLevel(
      findTarget(result, 'infernode-binary'),
      BATCH_TARGET_CONCURRENCY,
    );
    const raw = concurrencyLevel(findTarget(result, 'raw-ort'), BATCH_TARGET_CONCURRENCY);
    if (binary !== undefined && raw !== undefined && raw.summary.inferPerSec > 0) {
      const r = binary.summary.inferPerSec / raw.summary.inferPerSec;
      out.push(
        `Target: ${model}, binary, batch ${BATCH_TARGET_SIZE}, c=${BATCH_TARGET_CONCURRENCY}: at least ` +
          `${BATCH_RAW_MIN_RATIO}× raw ORT's rows/s — ${x(r)} (${met(r >= BATCH_RAW_MIN_RATIO)}).`,
      );
    }
  }
  return out;
}

const NOTE =
  'Ratios divide the first target by the second at the same level: req/s above 1× means the ' +
  'first served more, p99 below 1× means it had the lower tail. The naive servers run ' +
  "onnxruntime-node on Fastify's main thread; the one-thread variant pins ORT's intra- and " +
  'inter-op pools to one thread each, so it does not spin on the cores the load generator needs.';

const CPU_NOTE =
  'Server CPU: cores the server process used (all its threads, from /proc) per 1,000 req/s it ' +
  'served — what a request costs the machine, whatever the throughput.';

export interface OverheadFile {
  readonly result: BenchResult;
  /** Repository-relative path of the JSON it came from. */
  readonly source: string;
}

/** RESULTS.md sections for published overhead comparisons, one per file. */
export function overheadSections(files: readonly OverheadFile[]): string[] {
  const out: string[] = [];
  for (const { result, source } of files) {
    out.push(
      `## Per-request overhead on \`${result.model.name}\`, batch ${result.model.batchSize}, Node ${result.machine.node}`,
      '',
      `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
      '',
      `- **Machine:** ${machineLine(result)}`,
      `- **Code:** ${commitLine(result)}`,
      `- **Workload:** ${workloadLine(result)}`,
      '',
      markdownTable(overheadTable(result)),
      '',
      NOTE,
      '',
      markdownTable(cpuPerKiloTable(result)),
      '',
      CPU_NOTE,
      '',
    );
    const stages = stageTable(result);
    if (stages !== null) out.push(markdownTable(stages), '', STAGE_NOTE, '');
    for (const verdict of overheadVerdicts(result)) out.push(verdict, '');
    const notes = caveats(result);
    if (notes.length > 0) out.push(...notes.map((n) => `- ${n}`), '');
  }
  return out;
}
