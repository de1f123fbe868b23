// Publishing a comparison: copies its files to bench/results/latest.* (committed), regenerates
// bench/RESULTS.md from latest.json, and refreshes the README's block between its
// `<!-- bench-results:start/end -->` markers when the README has them. Generated Markdown, JSON
// and HTML are run through the repository's prettier so `prettier --check .` stays clean.

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { README, REPO_ROOT, RESULTS_DIR, RESULTS_MD } from '../paths.js';
import { perfAnalyzerCsv } from './csv.js';
import { renderHtml } from './html-report.js';
import { latencyThroughputModel } from './plot-model.js';
import { plotPng } from './raster-plot.js';
import type { BenchResult } from './result-types.js';
import { renderReadmeBlock, renderResultsMarkdown, spliceReadme } from './results-md.js';
import { mainTarget } from './write-outputs.js';

export interface Published {
  readonly files: readonly string[];
  /** False when the README has no markers (the lead adds them once). */
  readonly readmeUpdated: boolean;
}

async function formatted(file: string, text: string): Promise<string> {
  try {
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(file)) ?? {};
    return await prettier.format(text, { ...config, filepath: file });
  } catch {
    // prettier is a dev dependency; without it the files are still valid, just not reformatted.
    return text;
  }
}

export async function writeFormatted(file: string, text: string): Promise<void> {
  await writeFile(file, await formatted(file, text));
}

/**
 * Everything derived from bench/results/latest.json: the CSVs, the HTML report, the PNG plot,
 * bench/RESULTS.md and (when it has the markers) the README block. Run again after a renderer
 * changes, with no new measurement (`node dist/bench/render-results.js`).
 */
export async function renderPublished(result: BenchResult): Promise<Published> {
  const at = (name: string): string => path.join(RESULTS_DIR, name);
  const percentile = result.options.percentile;
  const files: string[] = [];
  const main = mainTarget(result);
  if (main !== undefined) {
    await writeFile(at('latest.csv'), perfAnalyzerCsv(main, percentile));
    files.push(at('latest.csv'));
  }
  for (const t of result.targets) {
    await writeFile(at(`latest.${t.id}.csv`), perfAnalyzerCsv(t, percentile));
  }
  await writeFormatted(at('latest.html'), renderHtml(result));
  await writeFile(at('latest.png'), plotPng(latencyThroughputModel(result)));
  files.push(at('latest.html'), at('latest.png'));
  const source = path.relative(REPO_ROOT, at('latest.json'));
  await writeFormatted(RESULTS_MD, renderResultsMarkdown(result, source, 'results/latest.png'));
  files.push(RESULTS_MD);
  const readme = await readFile(README, 'utf8').catch(() => '');
  const spliced = spliceReadme(readme, renderReadmeBlock(result));
  if (spliced !== null) {
    await writeFormatted(README, spliced);
    files.push(README);
  }
  return { files, readmeUpdated: spliced !== null };
}

/** Stores a comparison as bench/results/latest.json and renders everything from it. */
export async function publish(result: BenchResult): Promise<Published> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = path.join(RESULTS_DIR, 'latest.json');
  await writeFormatted(json, `${JSON.stringify(result, null, 2)}\n`);
  const rendered = await renderPublished(result);
  return { files: [json, ...rendered.files], readmeUpdated: rendered.readmeUpdated };
}
