// The generator's HTTP/1.1 response framing: Content-Length and chunked bodies arriving in any
// pieces, keep-alive, error samples, and the malformed cases that must drop a connection.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ResponseParser, type HttpResponseInfo } from '../../../bench/load/http-response-parser.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

/** Feeds `bytes` cut at `cuts`; returns every completed response and where it completed. */
function feed(
  bytes: Buffer,
  cuts: readonly number[],
): { done: HttpResponseInfo | null; at: number }[] {
  const parser = new ResponseParser();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((x, y) => x - y);
  const out: { done: HttpResponseInfo | null; at: number }[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    if (p <= prev) continue;
    out.push({ done: parser.push(bytes.subarray(prev, p)), at: p });
    prev = p;
  }
  return out;
}

const JSON_BODY = '{"model_name":"mlp","outputs":[]}';
const CL = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nContent-Length: ${JSON_BODY.length}\r\n\r\n${JSON_BODY}`;
const CHUNKED =
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '5;ext=1\r\nhello\r\n' +
  'b\r\n, chunked!!\r\n' +
  '0\r\nX-Trailer: 1\r\n\r\n';

void describe('ResponseParser', () => {
  void it('reads a Content-Length response', () => {
    const r = new ResponseParser().push(b(CL));
    assert.deepEqual(r, {
      status: 200,
      keepAlive: true,
      bodyBytes: JSON_BODY.length,
      bodySample: '',
    });
  });

  void it('reads a chunked response with extensions and trailers', () => {
    const r = new ResponseParser().push(b(CHUNKED));
    assert.deepEqual(r, { status: 200, keepAlive: true, bodyBytes: 16, bodySample: '' });
  });

  void it('completes exactly at the last byte however the bytes are split', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(CL, CHUNKED),
        fc.array(fc.nat(), { maxLength: 12 }),
        (text, cuts) => {
          const steps = feed(b(text), cuts);
          const completed = steps.filter((s) => s.done !== null);
          return completed.length === 1 && completed[0]?.at === text.length;
        },
      ),
    );
  });

  void it('parses one response after another on the same connection', () => {
    const parser = new ResponseParser();
    assert.equal(parser.push(b(CL))?.status, 200);
    assert.equal(parser.push(b(CHUNKED))?.bodyBytes, 16);
    assert.equal(parser.push(b(CL))?.bodyBytes, JSON_BODY.length);
  });

  void it('keeps the start of an error body for the report', () => {
    const body = '{"error":"unexpected shape for input \'INPUT0\'"}';
    const r = new ResponseParser().push(
      b(`HTTP/1.1 400 Bad Request\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
    );
    assert.equal(r?.status, 400);
    assert.equal(r?.bodySample, body);
  });

  void it('notices Connection: close, and HTTP/1.0 without keep-alive', () => {
    assert.equal(
      new ResponseParser().push(
        b('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'),
      )?.keepAlive,
      false,
    );
    assert.equal(
      new ResponseParser().push(b('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n'))?.keepAlive,
      false,
    );
    assert.equal(
      new ResponseParser().push(
        b('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n'),
      )?.keepAlive,
      true,
    );
  });

  void it('completes a 204 without a body', () => {
    assert.equal(new ResponseParser().push(b('HTTP/1.1 204 No Content\r\n\r\n'))?.bodyBytes, 0);
  });

  void it('rejects malformed framing', () => {
    const bad: [string, RegExp][] = [
      ['HTTP/2 200\r\n\r\n', /bad status line/],
      ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /bad Content-Length/],
      ['HTTP/1.1 200 OK\r\n\r\n', /neither Content-Length nor chunked/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /bad chunk size/],
      [
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n',
        /expected CRLF after chunk data/,
      ],
      ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab', /1 unexpected bytes/],
    ];
    for (const [text, message] of bad)
      assert.throws(() => new ResponseParser().push(b(text)), message, text);
  });
});
