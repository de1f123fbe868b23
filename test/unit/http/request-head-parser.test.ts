// Unit tests for the strict request-head parser used when a request carries both framing headers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestHead } from '../../../src/http/request-head-parser.js';

function parse(text: string): ReturnType<typeof parseRequestHead> {
  return parseRequestHead(Buffer.from(text, 'latin1'));
}

void test('a head gives method, path, query, lower-case joined headers and its length', () => {
  const head = 'POST /v2/models/m/infer?x=1 HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nx-a:  2 \r\n\r\n';
  const parsed = parse(`${head}body`);
  assert.ok(!('refused' in parsed));
  assert.equal(parsed.length, head.length);
  assert.equal(parsed.head.method, 'POST');
  assert.equal(parsed.head.path, '/v2/models/m/infer');
  assert.equal(parsed.head.query, 'x=1');
  assert.deepEqual(
    [...parsed.head.headers],
    [
      ['host', 'h'],
      ['x-a', '1, 2'],
    ],
  );
});

void test('anything not a strict HTTP/1.1 head is refused, with the reason', () => {
  const refusals: [string, RegExp][] = [
    ['POST / HTTP/1.1\r\nHost: h\r\n', /no complete request head/],
    ['POST / HTTP/1.0\r\nHost: h\r\n\r\n', /malformed request line/],
    ['POST  / HTTP/1.1\r\nHost: h\r\n\r\n', /malformed request line/],
    ['POST / HTTP/1.1\r\nHost: h\r\nX-A : 1\r\n\r\n', /malformed header field/],
    ['POST / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n', /malformed header field/],
    ['POST / HTTP/1.1\r\nHost: h\nX-A: 1\r\n\r\n', /bare CR or LF/],
    ['POST / HTTP/1.1\r\nX-A: 1\r\n\r\n', /no Host header/],
  ];
  for (const [text, reason] of refusals) {
    const parsed = parse(text);
    assert.ok('refused' in parsed, JSON.stringify(text));
    assert.match(parsed.refused, reason, JSON.stringify(text));
  }
});
