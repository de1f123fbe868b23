// The HTML report of a run: self-contained (inline CSS and SVG), readable offline, rendered from
// the result file alone.

import { caveats, comparisonTable, levelTable, limitsTable } from './comparison.js';
import { levelName, ms, rate } from './format.js';
import { latencyThroughputModel } from './plot-model.js';
import type { BenchResult, TargetResult } from './result-types.js';
import { commitLine, machineLine, workloadLine } from './run-summary.js';
import { plotSvg } from './svg-plot.js';
import type { Table } from './tables.js';

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function htmlTable(t: Table): string {
  const cls = (i: number): string => (t.align?.[i] === 'right' ? ' class="num"' : '');
  const head = t.headers.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join('');
  const body = t.rows
    .map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${esc(c)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function windowsTable(target: TargetResult): string {
  return target.levels
    .map((l) => {
      const rows = l.windows.map((w) => [
        String(w.index + 1),
        (w.durationMs / 1000).toFixed(2),
        String(w.requests),
        rate(w.reqPerSec),
        ms(w.latency.avgUs),
        ms(w.latency.p50Us),
        ms(w.latency.p99Us),
        ms(w.latency.maxUs),
        String(w.errors),
      ]);
      const table = htmlTable({
        headers: ['window', 's', 'requests', 'req/s', 'avg ms', 'p50', 'p99', 'max', 'errors'],
        rows,
        align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
      });
      return `<details><summary>${esc(levelName(l.mode, l.value))}: ${esc(l.stability)}</summary>${table}</details>`;
    })
    .join('\n');
}

export function renderHtml(result: BenchResult): string {
  const title = `infernode bench: ${result.model.name}, batch ${result.model.batchSize}`;
  const sections: string[] = [];
  sections.push(`<h1>${esc(title)}</h1>`);
  sections.push(
    '<dl>' +
      `<dt>command</dt><dd><code>${esc(result.command)}</code></dd>` +
      `<dt>run</dt><dd>${esc(result.startedAt)} – ${esc(result.finishedAt)}</dd>` +
      `<dt>machine</dt><dd>${esc(machineLine(result))}</dd>` +
      `<dt>code</dt><dd>${esc(commitLine(result))}</dd>` +
      `<dt>workload</dt><dd>${esc(workloadLine(result))}</dd>` +
      '</dl>',
  );
  if (result.kind === 'compare') {
    sections.push('<h2>Comparison</h2>', htmlTable(comparisonTable(result)));
  }
  const notes = caveats(result);
  if (notes.length > 0)
    sections.push(`<ul class="caveats">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  sections.push('<h2>Latency vs throughput</h2>', plotSvg(latencyThroughputModel(result)));
  const limits = limitsTable(result);
  if (limits !== null) sections.push('<h2>Raw ONNX Runtime limits</h2>', htmlTable(limits));
  for (const t of result.targets) {
    if (t.kind === 'raw-ort-limit') continue;
    sections.push(
      `<h2>${esc(t.label)}</h2>`,
      `<p>${esc(t.description)} (${esc(t.transport)})</p>`,
      t.notes.length > 0 ? `<ul>${t.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '',
      htmlTable(levelTable(t)),
      windowsTable(t),
    );
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px; color: #111827; padding: 0 1rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 0.25rem 0.6rem; text-align: left; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; }
dt { font-weight: 600; } dd { margin: 0 0 0.4rem 0; }
.caveats { color: #92400e; }
details { margin: 0.3rem 0; }
</style>
</head>
<body>
${sections.join('\n')}
<p><small>Rendered from the run's result JSON (schema ${esc(result.schema)}).</small></p>
</body>
</html>
`;
}
