// Regenerates everything derived from the published result files (bench/results/latest.json and
// protocols-*.json): CSVs, HTML, PNG, bench/RESULTS.md and the README's results block when it has
// the markers, e.g. after a renderer changes. No measurement runs.

import path from 'node:path';
import { HELP_FLAG } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { renderAllPublished } from './report/publish.js';
import type { SubcommandModule } from './subcommands.js';

async function main(): Promise<number> {
  const published = await renderAllPublished().catch((e: unknown) => {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  });
  for (const f of published.files)
    process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
  return 0;
}

export const command: SubcommandModule = { flags: { help: HELP_FLAG }, main };
