// bench/RESULTS.md and the README's results block, generated from a result file (never typed by
// hand): what produced the figures, on what, the comparison table, the plot, and the caveats.

import { caveats, comparisonTable, levelTable, limitsTable } from './comparison.js';
import { protocolSections, type ResultFile } from './protocol-table.js';
import type { BenchResult } from './result-types.js';
import { commitLine, machineLine, workloadLine } from './run-summary.js';
import { markdownTable } from './tables.js';

export const README_START = '<!-- bench-results:start -->';
export const README_END = '<!-- bench-results:end -->';

const RATIO_NOTE =
  'Ratios are infernode divided by the other: req/s above 1× means infernode served more, ' +
  'p99 below 1× means infernode had the lower tail latency.';

function provenance(result: BenchResult, source: string): string {
  return [
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\` by`,
    '`node dist/bench/cli.js render`.',
  ].join(' ');
}

function facts(result: BenchResult): string {
  return [
    `- **Machine:** ${machineLine(result)}`,
    `- **Code:** ${commitLine(result)}`,
    `- **Workload:** ${workloadLine(result)}`,
  ].join('\n');
}

/**
 * bench/RESULTS.md: the main comparison (`result`, from latest.json; null when none is published),
 * one section per published transport comparison (protocols-<model>.json), how to read them, and
 * then the model-management benches' sections (`after`, already rendered).
 */
export function renderResultsMarkdown(
  result: BenchResult | null,
  source: string,
  imagePath: string,
  protocols: readonly ResultFile[] = [],
  after: readonly string[] = [],
  /**
   * Rendered sections of the per-request overhead comparisons (overhead-table.ts) and the thread
   * sweeps (thread-table.ts).
   */
  overhead: readonly string[] = [],
): string {
  const out: string[] = [];
  out.push('# Benchmark results', '');
  out.push(
    '<!-- Generated from the result file below; edit bench/report/results-md.ts, not this file. -->',
    '',
  );
  if (result !== null) out.push(...mainSections(result, source, imagePath));
  out.push(...protocolSections(protocols));
  out.push(...overhead);
  out.push('## Reading these figures', '');
  out.push(
    '- Latency is measured by the load generator, from the send of a request to the last byte of its answer ' +
      '(request-rate runs: from the intended send time). Percentiles come from HDR histograms with 3 significant digits.',
    '- Each level is measured in windows until the last three agree within the stability percentage ' +
      "(perf_analyzer's rule); the figures are those three windows together.",
    '- The generator, the servers and raw ORT run on the same machine, one target at a time; the CPU columns show ' +
      'how many cores the server, the generator and everything else used.',
    "- The result JSON holds every window with its histogram; the CSV has perf_analyzer's columns.",
  );
  if (after.length > 0) out.push('', ...after);
  return `${out.join('\n')}\n`;
}

function mainSections(result: BenchResult, source: string, imagePath: string): string[] {
  const out: string[] = [];
  out.push(provenance(result, source), '');
  out.push(facts(result), '');
  if (result.kind === 'compare') {
    out.push('## infernode, a naive Fastify server and raw ONNX Runtime', '');
    out.push(markdownTable(comparisonTable(result)), '');
    out.push(RATIO_NOTE, '');
  }
  const notes = caveats(result);
  if (notes.length > 0) out.push(...notes.map((n) => `- ${n}`), '');
  out.push(`![latency vs throughput](${imagePath})`, '');
  const limits = limitsTable(result);
  if (limits !== null) {
    out.push('## What this machine can do without a server', '');
    out.push(markdownTable(limits), '');
  }
  for (const t of result.targets) {
    if (t.kind === 'raw-ort-limit' || t.kind === 'raw-ort') continue;
    out.push(`## ${t.label}: every level`, '');
    out.push(
      `${t.description} (${t.transport}).${t.notes.length > 0 ? ` ${t.notes.join('; ')}.` : ''}`,
      '',
    );
    out.push(markdownTable(levelTable(t)), '');
  }
  return out;
}

/** The block between the README's markers: the headline table, linking to RESULTS.md. */
export function renderReadmeBlock(result: BenchResult): string {
  const out: string[] = [README_START, ''];
  out.push(`${provenance(result, 'bench/results/latest.json')} ${machineLine(result)}.`, '');
  if (result.kind === 'compare')
    out.push(markdownTable(comparisonTable(result)), '', RATIO_NOTE, '');
  out.push('![latency vs throughput](bench/results/latest.png)', '');
  out.push('Details, limits and caveats: [bench/RESULTS.md](bench/RESULTS.md).', '', README_END);
  return out.join('\n');
}

/** Replaces the README's marked block; returns null when the README has no markers. */
export function spliceReadme(readme: string, block: string): string | null {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start === -1 || end === -1 || end < start) return null;
  return readme.slice(0, start) + block + readme.slice(end + README_END.length);
}
