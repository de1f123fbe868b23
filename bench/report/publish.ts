// Publishing a comparison: copies its files to bench/results/latest.* (committed), regenerates
// bench/RESULTS.md from latest.json, and refreshes the README's block between its
// `<!-- bench-results:start/end -->` markers when the README has them. Generated Markdown, JSON
// and HTML are run through the repository's prettier so `prettier --check .` stays clean.

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { README, RESULTS_DIR, RESULTS_MD } from '../paths.js';
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

/** Renders RESULTS.md (and the README block) from a result already stored in bench/results/. */
export async function renderPublished(result: BenchResult): Promise<Published> {
  const source = path.relative(
    path.dirname(path.dirname(RESULTS_MD)),
    path.join(RESULTS_DIR, 'latest.json'),
  );
  await writeFormatted(RESULTS_MD, renderResultsMarkdown(result, source, 'results/latest.png'));
  const readme = await readFile(README, 'utf8').catch(() => '');
  const spliced = spliceReadme(readme, renderReadmeBlock(result));
  if (spliced !== null) await writeFormatted(README, spliced);
  return {
    files: [RESULTS_MD, ...(spliced !== null ? [README] : [])],
    readmeUpdated: spliced !== null,
  };
}

export async function publish(result: BenchResult, percentile: number): Promise<Published> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const at = (name: string): string => path.join(RESULTS_DIR, name);
  await writeFormatted(at('latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  const main = mainTarget(result);
  if (main !== undefined) await writeFile(at('latest.csv'), perfAnalyzerCsv(main, percentile));
  for (const t of result.targets)
    await writeFile(at(`latest.${t.id}.csv`), perfAnalyzerCsv(t, percentile));
  await writeFormatted(at('latest.html'), renderHtml(result));
  await writeFile(at('latest.png'), plotPng(latencyThroughputModel(result)));
  const rendered = await renderPublished(result);
  return {
    files: [
      at('latest.json'),
      at('latest.csv'),
      at('latest.html'),
      at('latest.png'),
      ...rendered.files,
    ],
    readmeUpdated: rendered.readmeUpdated,
  };
}
