// The error catalog is part of the protocol: a client written in another language learns the codes
// from docs/websocket-protocol.md, not from src/errors.ts. Every catalogued code must be in the
// doc's generated table with its HTTP status, every code in the table must exist, and the HTTP page's status
// table must name exactly the statuses the catalog uses.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CATALOG, isErrorCode } from '../../../src/errors.js';
import { TABLE_BEGIN, TABLE_END } from '../../../scripts/render-error-codes.js';
import { REPO_ROOT } from '../../helpers/paths.js';

const readDoc = (name: string): string => readFileSync(path.join(REPO_ROOT, 'docs', name), 'utf8');

/** The text of the `## heading` section, up to the next `## `. */
function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  assert.notEqual(start, -1, `no "## ${heading}" section`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** The body rows of the markdown tables in `text`, as trimmed cells. */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    )
    .slice(1); // the header row
}

void describe('the error catalog in the docs', () => {
  const ws = readDoc('websocket-protocol.md');
  const rows = tableRows(ws.slice(ws.indexOf(TABLE_BEGIN), ws.indexOf(TABLE_END)));
  const documented = new Map<string, number>();
  for (const [code, status] of rows) {
    const name = /^`([A-Z_]+)`$/.exec(code ?? '')?.[1];
    assert.ok(name !== undefined, `not a code cell: ${code}`);
    assert.ok(!documented.has(name), `${name} is listed twice`);
    documented.set(name, Number(status));
  }

  void it('lists every catalogued code with its HTTP status', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      assert.equal(documented.get(code), entry.status, `${code}: documented status`);
    }
  });

  void it('lists no code the catalog does not have', () => {
    for (const code of documented.keys()) assert.ok(isErrorCode(code), `${code} is not catalogued`);
    assert.equal(documented.size, Object.keys(ERROR_CATALOG).length);
  });

  void it("matches the HTTP page's status table to the statuses the catalog uses", () => {
    const http = readDoc('http-protocol.md');
    const statuses = tableRows(section(http, 'Status codes')).map(([, status]) => Number(status));
    const used = new Set(Object.values(ERROR_CATALOG).map((e) => e.status));
    assert.deepEqual([...new Set(statuses)].sort(), [...used].sort());
    assert.equal(statuses.length, used.size, 'one row per status');
    assert.ok(http.includes('(websocket-protocol.md#error-codes)'), 'links to the code table');
  });
});
