// The renderings of a result: the comparison table with its ratios, RESULTS.md with where its
// figures came from, the README block between its markers, the HTML report and the plot model.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caveats, comparisonTable, limitsTable } from '../../../bench/report/comparison.js';
import { renderHtml } from '../../../bench/report/html-report.js';
import {
  axisFraction,
  latencyThroughputModel,
  logAxis,
  niceAxis,
} from '../../../bench/report/plot-model.js';
import {
  README_END,
  README_START,
  renderReadmeBlock,
  renderResultsMarkdown,
  spliceReadme,
} from '../../../bench/report/results-md.js';
import { markdownTable, textTable } from '../../../bench/report/tables.js';
import { comparisonFixture } from './result-fixture.js';

void describe('comparison table', () => {
  const result = comparisonFixture();
  const t = comparisonTable(result);

  void it('has req/s, p50 and p99 per target and the two ratios', () => {
    assert.deepEqual(t.headers, [
      'concurrency',
      'raw ORT req/s',
      'p50 ms',
      'p99 ms',
      'naive Fastify req/s',
      'p50 ms',
      'p99 ms',
      'infernode req/s',
      'p50 ms',
      'p99 ms',
      'infernode/naive req/s',
      'p99',
      'infernode/raw req/s',
      'p99',
    ]);
    assert.deepEqual(
      t.rows.map((r) => r[0]),
      ['1', '8'],
    );
  });

  void it('computes the ratios from the summaries', () => {
    const at8 = t.rows[1] as string[];
    const infernode = result.targets.find((x) => x.id === 'infernode')?.levels[1]?.summary;
    const naive = result.targets.find((x) => x.id === 'naive-fastify')?.levels[1]?.summary;
    const r = (infernode?.reqPerSec ?? 0) / (naive?.reqPerSec ?? 1);
    assert.equal(at8[10], `${r.toFixed(2)}×`);
    assert.equal(at8[7], '900');
    assert.equal(at8[4], '600');
  });

  void it('lists the raw ORT limits', () => {
    const limits = limitsTable(result);
    assert.deepEqual(
      limits?.rows.map((r) => r[0]),
      ['raw ORT, 1 session on the main thread', 'raw ORT, 2 threads'],
    );
  });

  void it('renders as aligned text and as Markdown with the same cells', () => {
    const text = textTable(t).split('\n');
    assert.equal(text.length, 2 + t.rows.length);
    assert.match(text[1] ?? '', /^-+ {2}-+/);
    const md = markdownTable(t).split('\n');
    assert.equal(md[1], `| --- | ${Array.from({ length: 13 }, () => '---:').join(' | ')} |`);
    assert.ok(md[3]?.includes('| 900 |'));
  });

  void it('flags unstable levels and a busy machine in the caveats', () => {
    assert.deepEqual(caveats(result), []);
    const shaky = comparisonFixture();
    const targets = shaky.targets.map((x) =>
      x.id === 'infernode' ? { ...x, levels: x.levels.map((l) => ({ ...l, stable: false })) } : x,
    );
    const notes = caveats({ ...shaky, targets });
    assert.match(
      notes[0] ?? '',
      /^figures marked \* did not become stable within --max-trials 10 windows.*infernode at concurrency 1/,
    );
    assert.ok(comparisonTable({ ...shaky, targets }).rows.every((r) => r[7]?.endsWith('*')));
  });
});

void describe('RESULTS.md and the README block', () => {
  const result = comparisonFixture();

  void it('says which command produced the figures, on what, from which file', () => {
    const md = renderResultsMarkdown(result, 'bench/results/latest.json', 'results/latest.png');
    assert.ok(md.startsWith('# Benchmark results\n'));
    assert.ok(
      md.includes(
        'Produced by `npm run bench:compare -- -m mlp --concurrency-range 1:8:x8` (2026-01-02)',
      ),
    );
    assert.ok(md.includes('rendered from `bench/results/latest.json`'));
    assert.ok(md.includes('2 × Test CPU'));
    assert.ok(md.includes('infernode 0.1.0 at 0123456789ab'));
    assert.ok(md.includes('![latency vs throughput](results/latest.png)'));
    assert.ok(md.includes('| concurrency | raw ORT req/s |'));
    assert.ok(md.includes('## infernode: every level'));
  });

  void it('replaces only what is between the README markers', () => {
    const readme = `# x\n\nintro\n\n${README_START}\nold figures\n${README_END}\n\n## After\n`;
    const block = renderReadmeBlock(result);
    const out = spliceReadme(readme, block);
    assert.ok(out !== null);
    assert.ok(out.startsWith('# x\n\nintro\n\n<!-- bench-results:start -->'));
    assert.ok(out.endsWith(`${README_END}\n\n## After\n`));
    assert.ok(!out.includes('old figures'));
    assert.ok(out.includes('bench/results/latest.png'));
    assert.equal(spliceReadme('# no markers\n', block), null);
  });
});

void describe('HTML report and plot', () => {
  const result = comparisonFixture();

  void it('is one self-contained page with the plot and every target', () => {
    const html = renderHtml(result);
    assert.ok(html.startsWith('<!doctype html>'));
    assert.ok(html.includes('<svg'));
    for (const label of ['raw ORT', 'naive Fastify', 'infernode'])
      assert.ok(html.includes(`<h2>${label}</h2>`), label);
    assert.ok(!/<script|<link|src="http/.test(html));
  });

  void it('plots p99 and p50 per target and the machine limit, on a log axis when it spans decades', () => {
    const model = latencyThroughputModel(result);
    assert.deepEqual(
      model.series.map((s) => s.label),
      [
        'raw ORT p99',
        'raw ORT p50',
        'naive Fastify p99',
        'naive Fastify p50',
        'infernode p99',
        'infernode p50',
      ],
    );
    assert.equal(model.markers.length, 1);
    assert.equal(model.x.scale, 'log');
    assert.ok(
      model.series.every((s) =>
        s.points.every((p) => axisFraction(model.x, p.x) >= 0 && axisFraction(model.x, p.x) <= 1),
      ),
    );
    assert.ok(
      model.series.every((s) =>
        s.points.every((p) => axisFraction(model.y, p.y) >= 0 && axisFraction(model.y, p.y) <= 1),
      ),
    );
  });

  void it('chooses round axis ticks', () => {
    assert.deepEqual(niceAxis(0, 37).ticks, [0, 10, 20, 30, 40]);
    assert.deepEqual(niceAxis(0, 0.9).ticks, [0, 0.2, 0.4, 0.6, 0.8, 1]);
    assert.deepEqual(logAxis(350, 9200).ticks, [200, 500, 1000, 2000, 5000, 10000]);
    assert.deepEqual(logAxis(982, 11_627).ticks, [500, 1000, 2000, 5000, 10000, 20000]);
    assert.deepEqual(logAxis(100, 1000).ticks, [100, 200, 500, 1000]);
  });
});
