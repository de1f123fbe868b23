// The byte-level examples of docs/websocket-protocol.md, read back out of the document: the unit
// test compares them with the codecs, the integration test replays them against a real server.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export const WEBSOCKET_DOC = readFileSync(
  path.join(REPO_ROOT, 'docs', 'websocket-protocol.md'),
  'utf8',
);

/** The document's example frames, by the sentence that introduces each. */
export const DOC_EXAMPLES = {
  request: 'A request for `simple`',
  response: 'Its response',
  errorRequest: 'An error: a request for a model',
  errorResponse: 'is answered with (',
} as const;

/**
 * The bytes of the fenced block after `intro`: every 2-digit hex token at the start of a line,
 * before the commentary. Checks the "(N bytes)" the introducing sentence states.
 */
export function docExample(intro: string): Buffer {
  const at = WEBSOCKET_DOC.indexOf(intro);
  assert.ok(at >= 0, `the document has no example introduced by ${JSON.stringify(intro)}`);
  const start = WEBSOCKET_DOC.indexOf('```', at);
  const block = WEBSOCKET_DOC.slice(start + 3, WEBSOCKET_DOC.indexOf('```', start + 3));
  const hex = block
    .split('\n')
    .map((line) => (line.match(/^(?:[0-9a-f]{2}(?: +|$))+/)?.[0] ?? '').replace(/\s+/g, ''))
    .join('');
  const bytes = Buffer.from(hex, 'hex');
  const stated = /\((\d+) bytes\)/.exec(WEBSOCKET_DOC.slice(at, start))?.[1];
  assert.equal(Number(stated), bytes.length, `the length stated after ${JSON.stringify(intro)}`);
  return bytes;
}
