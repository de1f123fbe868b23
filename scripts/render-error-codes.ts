// Renders the error catalog (src/errors.ts) as the code table of docs/websocket-protocol.md, the one
// list of codes a client in another language reads. The table sits between the markers below and
// is never edited by hand; a test renders it again and compares.
//   node dist/scripts/render-error-codes.js          rewrites the table in the document
//   node dist/scripts/render-error-codes.js --check  exits 1 when the document's table is stale

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOG } from '../src/errors.js';

export const TABLE_BEGIN = '<!-- error-codes:begin -->';
export const TABLE_END = '<!-- error-codes:end -->';

/** The document holding the table, relative to the repository root. */
export const TABLE_DOCUMENT = path.join('docs', 'websocket-protocol.md');

/**
 * The catalog as a Markdown table, in catalog order, laid out as prettier lays out tables (cells
 * padded to the column's width), so `npm run format` leaves it as rendered.
 */
export function renderErrorCodeTable(): string {
  const rows = Object.entries(ERROR_CATALOG).map(([code, e]) => [
    `\`${code}\``,
    String(e.status),
    e.summary,
  ]);
  const header = ['code', 'HTTP status', 'meaning'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** `doc` with the text between the markers replaced by `table` (blank lines around it). */
export function withTable(doc: string, table: string): string {
  const begin = doc.indexOf(TABLE_BEGIN);
  const end = doc.indexOf(TABLE_END);
  if (begin === -1 || end < begin) {
    throw new Error(`the document has no ${TABLE_BEGIN} ... ${TABLE_END} markers`);
  }
  return `${doc.slice(0, begin + TABLE_BEGIN.length)}\n\n${table}\n\n${doc.slice(end)}`;
}

async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes('--check');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const file = path.join(root, TABLE_DOCUMENT);
  const doc = await readFile(file, 'utf8');
  const updated = withTable(doc, renderErrorCodeTable());
  if (updated === doc) {
    process.stdout.write(`render-error-codes: ${TABLE_DOCUMENT} is up to date\n`);
    return 0;
  }
  if (check) {
    process.stderr.write(`render-error-codes: ${TABLE_DOCUMENT} differs from src/errors.ts\n`);
    return 1;
  }
  await writeFile(file, updated);
  process.stdout.write(`render-error-codes: rewrote the table in ${TABLE_DOCUMENT}\n`);
  return 0;
}

// Run only as the entry point: the test imports the renderer without side effects.
const entry = process.argv[1];
if (entry !== undefined && path.resolve(entry) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        `render-error-codes: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
