#!/usr/bin/env node
// Regenerates everything derived from the published result files (bench/results/latest.json and
// protocols-*.json): CSVs, HTML, PNG, bench/RESULTS.md and the README's results block when it has
// the markers, e.g. after a renderer changes. No measurement runs.

import path from 'node:path';
import { runEntry } from './entry.js';
import { UsageError } from './options/usage-error.js';
import { renderAllPublished } from './report/publish.js';

async function main(): Promise<number> {
  const published = await renderAllPublished().catch((e: unknown) => {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  });
  for (const f of published.files)
    process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
  return 0;
}

runEntry('render-results', main);
