// Writes a run's files into its own directory: result.json (everything), one perf_analyzer CSV
// per target, report.html and plot.png; plus the -f / --json copies the command line asked for.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BenchOptions } from '../options/bench-options.js';
import { perfAnalyzerCsv } from './csv.js';
import { renderHtml } from './html-report.js';
import { latencyThroughputModel } from './plot-model.js';
import { plotPng } from './plot-png.js';
import type { BenchResult } from './result-types.js';

export interface WrittenFiles {
  readonly dir: string;
  readonly json: string;
  /** target id -> CSV path */
  readonly csv: Readonly<Record<string, string>>;
  readonly html: string;
  readonly png: string;
}

/** The CSV of the run's main target: infernode in a comparison, else the only target. */
export function mainTarget(result: BenchResult): BenchResult['targets'][number] | undefined {
  return result.targets.find((t) => t.id === 'infernode') ?? result.targets[0];
}

export function runDirectoryName(result: BenchResult): string {
  const stamp = result.startedAt.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${result.kind}-${result.model.name}`;
}

export async function writeOutputs(
  result: BenchResult,
  options: BenchOptions,
): Promise<WrittenFiles> {
  const dir = path.join(options.outDir, runDirectoryName(result));
  await mkdir(dir, { recursive: true });
  const json = path.join(dir, 'result.json');
  await writeFile(json, `${JSON.stringify(result, null, 2)}\n`);
  const csv: Record<string, string> = {};
  for (const t of result.targets) {
    const file = path.join(dir, `${t.id}.csv`);
    await writeFile(file, perfAnalyzerCsv(t, options.percentile));
    csv[t.id] = file;
  }
  const html = path.join(dir, 'report.html');
  await writeFile(html, renderHtml(result));
  const png = path.join(dir, 'plot.png');
  await writeFile(png, plotPng(latencyThroughputModel(result)));

  const main = mainTarget(result);
  if (options.csvFile !== '' && main !== undefined) {
    await mkdir(path.dirname(options.csvFile), { recursive: true });
    await writeFile(options.csvFile, perfAnalyzerCsv(main, options.percentile));
  }
  if (options.jsonFile !== '') {
    await mkdir(path.dirname(options.jsonFile), { recursive: true });
    await writeFile(options.jsonFile, `${JSON.stringify(result, null, 2)}\n`);
  }
  return { dir, json, csv, html, png };
}
