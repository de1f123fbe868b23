// The validation report: one plain object (written as JSON for machines) and its Markdown rendering
// (for a person reading a pull request). Both are made from the same object, so they never disagree.

import path from 'node:path';
import type { OutputAgreement } from '../compare/agreement.js';
import type { Check } from './checks.js';
import type { BatchLatency } from './latency.js';
import type { SampleSource } from './samples.js';
import type { SignatureFit } from './signature-fit.js';
import type { Thresholds } from './thresholds.js';

export const REPORT_FORMAT = 'infernode.validate.v1';

export interface ValidationReport {
  readonly format: typeof REPORT_FORMAT;
  readonly infernodeVersion: string;
  readonly model: string;
  readonly modelRepository: string;
  readonly serving: { readonly version: number; readonly file: string };
  readonly candidate: { readonly version: number | null; readonly file: string };
  readonly verdict: 'pass' | 'fail';
  /** Why the validation stopped before comparing outputs, when it did. */
  readonly stoppedAt?: 'signature' | 'load' | 'run';
  readonly signature: SignatureFit;
  /** ONNX Runtime's message when the candidate failed to load or run. */
  readonly error?: string;
  readonly samples?: SampleSource & { readonly count: number; readonly rows: number };
  readonly agreement: readonly OutputAgreement[];
  readonly latency: readonly BatchLatency[];
  readonly session: string;
  readonly thresholds: Thresholds;
  readonly checks: readonly Check[];
}

/** JSON with Infinity and NaN as strings (JSON has neither; null would lose the meaning). */
export function reportJson(r: ValidationReport): string {
  return `${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2)}\n`;
}

/** Four significant digits, exponent form for small numbers. */
export function num(x: number | string): string {
  if (typeof x === 'string') return x;
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a < 1e-3 || a >= 1e6 ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

/** A value near 1 (a cosine) with enough digits to tell it from its limit: 0.999936, not 0.9999. */
const closeToOne = (x: number): string => (x === 1 ? '1' : String(Number(x.toPrecision(6))));

const measuredText = (c: Check): string =>
  c.check === 'min-cosine' && typeof c.measured === 'number'
    ? closeToOne(c.measured)
    : num(c.measured);

const pct = (x: number): string => `${Number((x * 100).toPrecision(4))} %`;

export function reportMarkdown(r: ValidationReport): string {
  const lines: string[] = [];
  const cand =
    r.candidate.version !== null
      ? `version ${r.candidate.version}`
      : `file ${path.basename(r.candidate.file)}`;
  lines.push(
    `# infernode validate: \`${r.model}\` ${cand} vs serving version ${r.serving.version}: **${r.verdict.toUpperCase()}**`,
    '',
  );
  const failed = r.checks.filter((c) => !c.pass);
  if (failed.length > 0) {
    lines.push(
      '## Failed checks',
      '',
      '| check | subject | measured | limit |',
      '|---|---|---|---|',
    );
    for (const c of failed)
      lines.push(`| ${c.check} | ${c.subject} | ${cell(measuredText(c))} | ${c.limit} |`);
    lines.push('');
  }
  if (r.stoppedAt !== undefined) {
    lines.push(`Stopped at the **${r.stoppedAt}** stage: nothing after it was measured.`, '');
  }
  lines.push(
    '## Models',
    '',
    `- serving: version ${r.serving.version} (\`${r.serving.file}\`)`,
    `- candidate: ${cand} (\`${r.candidate.file}\`)`,
    `- sessions: ${r.session}`,
    '',
  );
  lines.push('## Signature', '');
  if (r.signature.problems.length === 0)
    lines.push('The candidate fits the model config and the serving signature.');
  for (const p of r.signature.problems) lines.push(`- ${p}`);
  for (const n of r.signature.notes) lines.push(`- note: ${n}`);
  lines.push('');
  if (r.error !== undefined) lines.push('## Error', '', '```', r.error, '```', '');
  if (r.samples !== undefined) {
    lines.push(
      '## Samples',
      '',
      `${r.samples.count} sample(s), ${r.samples.rows} row(s): ${r.samples.description}`,
      '',
    );
  }
  if (r.agreement.length > 0) {
    lines.push(
      '## Output agreement',
      '',
      '| output | max abs diff | mean abs diff | rel diff (L2) | min cosine | top-1 | top-k | worst element (serving → candidate) |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const a of r.agreement) {
      if (a.shapeMismatch !== undefined) {
        lines.push(`| ${a.output} | shape differs: ${cell(a.shapeMismatch)} | | | | | | |`);
        continue;
      }
      if (a.equalShare !== undefined) {
        lines.push(`| ${a.output} | ${pct(a.equalShare)} of elements equal | | | | | | |`);
        continue;
      }
      const w = a.worst;
      lines.push(
        `| ${a.output} | ${num(a.maxAbsDiff ?? 0)} | ${num(a.meanAbsDiff ?? 0)} | ${num(a.relDiff ?? 0)} | ${a.minCosine === undefined ? '' : closeToOne(a.minCosine)} | ` +
          `${a.classifier === undefined ? '' : pct(a.classifier.top1)} | ${a.classifier === undefined ? '' : `${pct(a.classifier.topk)} (k=${a.classifier.k})`} | ` +
          `${w === undefined || a.maxAbsDiff === 0 ? '' : `${cell(w.sample)} row ${w.row} [${w.index}]: ${num(w.serving)} → ${num(w.candidate)}`} |`,
      );
    }
    lines.push('');
  }
  if (r.latency.length > 0) {
    lines.push(
      '## Latency (one run at a time, interleaved)',
      '',
      '| batch | serving p50 / p99 ms | candidate p50 / p99 ms | p50 ratio | p99 ratio | serving rows/s | candidate rows/s |',
      '|---|---|---|---|---|---|---|',
    );
    for (const l of r.latency) {
      lines.push(
        `| ${l.batchSize} | ${num(l.serving.p50Ms)} / ${num(l.serving.p99Ms)} | ${num(l.candidate.p50Ms)} / ${num(l.candidate.p99Ms)} | ${num(l.p50Ratio)} | ${num(l.p99Ratio)} | ${num(l.serving.throughput)} | ${num(l.candidate.throughput)} |`,
      );
    }
    lines.push(`\n${r.latency[0]?.iterations ?? 0} timed runs of each model per batch size.`, '');
  }
  lines.push('## Checks', '', '| check | subject | measured | limit | |', '|---|---|---|---|---|');
  for (const c of r.checks)
    lines.push(
      `| ${c.check} | ${c.subject} | ${cell(measuredText(c))} | ${c.limit} | ${c.pass ? 'pass' : '**FAIL**'} |`,
    );
  lines.push('', `infernode ${r.infernodeVersion}, report format ${r.format}.`, '');
  return lines.join('\n');
}

/** A table cell: pipes escaped, newlines folded. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
