#!/usr/bin/env node
// Regenerates everything derived from bench/results/latest.json (CSVs, HTML, PNG, bench/RESULTS.md
// and the README's results block when it has the markers), e.g. after a renderer changes. No
// measurement runs.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runEntry } from './entry.js';
import { UsageError } from './options/usage-error.js';
import { RESULTS_DIR } from './paths.js';
import { renderPublished } from './report/publish.js';
import { RESULT_SCHEMA, type BenchResult } from './report/result-types.js';

async function main(): Promise<number> {
  const file = path.join(RESULTS_DIR, 'latest.json');
  const text = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`no result file at ${file}: run npm run bench:compare first`);
  });
  const result = JSON.parse(text) as BenchResult;
  if (result.schema !== RESULT_SCHEMA) {
    throw new UsageError(`${file}: expected schema ${RESULT_SCHEMA}, got ${String(result.schema)}`);
  }
  const published = await renderPublished(result);
  for (const f of published.files)
    process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
  return 0;
}

runEntry('render-results', main);
