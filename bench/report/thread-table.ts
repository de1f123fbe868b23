// Issue 25's thread sweep (`bench:compare --thread-sweep`): infernode over each transport with
// --http-thread-count 1, 2, 4, ... and the N-process reference (N servers on N ports, the load
// split over them), one row per transport, server set-up and level: req/s, p50, p99, the cores
// every server process used together and those other processes took meanwhile, and the scaling
// over one thread. Published as
// bench/results/threads-<model>.json, one section of bench/RESULTS.md per model.

import { caveats } from './comparison.js';
import { cores, ms, rate, ratio } from './format.js';
import type { ResultFile } from './protocol-table.js';
import type { BenchResult, LevelResult, ServerScaling, TargetResult } from './result-types.js';
import { commitLine, machineLine, workloadLine } from './run-summary.js';
import { flagged } from './side-by-side.js';
import { alignColumns, markdownTable, type Table } from './tables.js';

/** A run of the thread sweep only: every target says how its servers were run. */
export function isThreadSweepRun(result: BenchResult): boolean {
  return (
    result.kind === 'compare' &&
    result.targets.length > 0 &&
    result.targets.every((t) => t.scaling !== undefined)
  );
}

/** `threads-<model>.json`. */
export function threadSweepFileName(result: BenchResult): string {
  return `threads-${result.model.name}.json`;
}

/** "1 thread", "4 threads", "2 processes"; "4 threads (served on 1)" when a server could not. */
export function setupName(s: ServerScaling): string {
  if (s.processes > 1) return `${s.processes} processes`;
  const asked = `${s.threads} thread${s.threads === 1 ? '' : 's'}`;
  const served = s.servedThreads[0];
  return served !== null && served !== undefined && served !== s.threads
    ? `${asked} (served on ${served})`
    : asked;
}

/** The one-thread, one-process row of the same transport: what the others scale against. */
function baseline(result: BenchResult, t: TargetResult): TargetResult | undefined {
  return result.targets.find(
    (o) => o.transport === t.transport && o.scaling?.threads === 1 && o.scaling.processes === 1,
  );
}

const levelAt = (t: TargetResult | undefined, l: LevelResult): LevelResult | undefined =>
  t?.levels.find((o) => o.mode === l.mode && o.value === l.value);

/**
 * One row per transport, server set-up and level, in the order they ran (transport by transport:
 * the thread counts, then the process counts).
 */
export function threadSweepTable(result: BenchResult): Table {
  const mode = result.targets[0]?.levels[0]?.mode ?? 'concurrency';
  const headers = [
    'transport',
    'server',
    mode === 'concurrency' ? 'concurrency' : 'req/s offered',
    'req/s',
    'p50 ms',
    'p99 ms',
    'server cores',
    'other cores',
    '× 1 thread',
  ];
  const rows: string[][] = [];
  for (const t of result.targets) {
    if (t.scaling === undefined) continue;
    const base = baseline(result, t);
    for (const l of t.levels) {
      const s = l.summary;
      rows.push([
        t.transport,
        setupName(t.scaling),
        String(l.value),
        flagged(rate(s.reqPerSec), l),
        ms(s.latency.p50Us),
        ms(s.latency.p99Us),
        cores(s.cpu.server),
        cores(s.cpu.other),
        base === t ? '1×' : ratio(s.reqPerSec, levelAt(base, l)?.summary.reqPerSec),
      ]);
    }
  }
  return { headers, rows, align: alignColumns(headers.length, [0, 1]) };
}

const SWEEP_NOTE =
  'Each row ran against its own freshly started infernode (or, for N processes, N of them), one ' +
  'after another, with the same load generator in its own process. "N threads" is one process ' +
  'with `--http-thread-count=N`: N threads accept HTTP and WebSocket connections on one port ' +
  '(SO_REUSEPORT); gRPC is served by the main thread whatever N is. "N processes" is the ' +
  'reference the threads are measured against: N servers with one thread each on N ports, the ' +
  "generator's connections split evenly over them, their req/s summed and their latencies merged " +
  'in one histogram. Server cores: the CPU time of every server process (all its threads), per ' +
  'second of wall time; other cores: what every other process on the machine used meanwhile ' +
  '(besides the servers and the generator), so a row measured while the machine was busy shows ' +
  'it. × 1 thread: req/s over the one-thread row of the same transport at the ' +
  'same level. Figures marked * never became stable (the last 3 windows).';

/** RESULTS.md sections for published thread sweeps, one per model. */
export function threadSweepSections(files: readonly ResultFile[]): string[] {
  const out: string[] = [];
  for (const { result, source } of files) {
    out.push(`## Front-end threads on \`${result.model.name}\`: threads and processes`, '');
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
    out.push(markdownTable(threadSweepTable(result)), '');
    out.push(SWEEP_NOTE, '');
    const notes = caveats(result);
    if (notes.length > 0) out.push(...notes.map((n) => `- ${n}`), '');
  }
  return out;
}
