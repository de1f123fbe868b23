// Conformance cases for a request with both `Transfer-Encoding: chunked` and `Content-Length`.
// Triton reads it by its Transfer-Encoding and closes the connection after the response (RFC 9112
// §6.1, §6.3); each adapter's `bothFramingHeaders` says whether it can (see conformance-case.ts).
// Every other framing rule still refuses: an unknown coding, a chunked body over the limit or
// malformed, and nothing pipelined behind the request is ever served.

import assert from 'node:assert/strict';
import type { CaseContext, ConformanceCase } from './conformance-case.js';
import { sha256, type EchoSummary } from './echo-handler.js';
import { RawConnection, rawRequest, type RawOutcome } from './raw-http.js';

const LIMIT = 1024;

function chunked(...pieces: string[]): string {
  return pieces.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n';
}

function both(path: string, body: string, order: 'te-first' | 'cl-first', cl = '5'): Buffer {
  const te: [string, string] = ['Transfer-Encoding', 'chunked'];
  const length: [string, string] = ['Content-Length', cl];
  return rawRequest('POST', path, order === 'te-first' ? [te, length] : [length, te], body);
}

/** Sends `request` on a fresh connection; returns the outcome and checks the connection closes. */
async function sendAlone(
  ctx: CaseContext,
  request: Buffer,
  halfClose = false,
): Promise<RawOutcome> {
  const conn = await RawConnection.open(ctx.port);
  await conn.send(request);
  if (halfClose) conn.end();
  const outcome = await conn.next();
  await conn.closed(); // after the response, or instead of it: never kept alive
  conn.destroy();
  return outcome;
}

/** Where the adapter cannot serve the request: it closes with no reply and no handler call. */
function assertDropped(ctx: CaseContext, outcome: RawOutcome, path: string): void {
  assert.equal(outcome, 'closed', `${ctx.impl.name} answered instead of closing`);
  assert.equal(ctx.echo.calls.filter((c) => c.summary.path === path).length, 0);
}

function errorOf(outcome: RawOutcome): string {
  assert.notEqual(outcome, 'closed', 'expected a 400 reply, the connection was closed instead');
  if (outcome === 'closed') throw new Error('unreachable');
  assert.equal(outcome.status, 400);
  assert.equal(outcome.headers.get('connection'), 'close');
  return (JSON.parse(outcome.body.toString('utf8')) as { error: string }).error;
}

export const BOTH_FRAMING_HEADERS_CASES: readonly ConformanceCase[] = [
  {
    id: 'te-and-cl-read-by-te',
    title: 'Transfer-Encoding with Content-Length: read by Transfer-Encoding, then closed',
    async run(ctx) {
      for (const order of ['te-first', 'cl-first'] as const) {
        for (const halfClose of [false, true]) {
          const path = `/both-${order}-${halfClose}`;
          // Content-Length says 5; the chunked body is 11 bytes in two chunks.
          const outcome = await sendAlone(
            ctx,
            both(path, chunked('hello', ' world'), order),
            halfClose,
          );
          if (ctx.impl.bothFramingHeaders === 'close') {
            assertDropped(ctx, outcome, path);
            continue;
          }
          assert.notEqual(outcome, 'closed', `${order}: no response`);
          if (outcome === 'closed') return;
          assert.equal(outcome.status, 200, `${order}: status`);
          assert.equal(outcome.headers.get('connection'), 'close', `${order}: Connection`);
          const summary = JSON.parse(outcome.body.toString()) as EchoSummary;
          assert.equal(summary.path, path);
          assert.equal(summary.sha256, sha256(Buffer.from('hello world')));
        }
      }
    },
  },
  {
    id: 'te-and-cl-pipelined',
    title: 'a request pipelined behind Transfer-Encoding with Content-Length is never served',
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      await conn.send(
        Buffer.concat([
          both('/both-first', chunked('abc'), 'te-first'),
          rawRequest('GET', '/smuggled'),
        ]),
      );
      const first = await conn.next();
      if (ctx.impl.bothFramingHeaders === 'close') {
        assertDropped(ctx, first, '/both-first');
      } else {
        assert.notEqual(first, 'closed');
        if (first !== 'closed') assert.equal(first.status, 200);
        assert.equal(await conn.next(), 'closed', 'a second response came back');
      }
      await conn.closed();
      conn.destroy();
      assert.equal(ctx.echo.calls.filter((c) => c.summary.path === '/smuggled').length, 0);
    },
  },
  {
    id: 'te-and-cl-still-refused',
    title: 'with both headers, an unknown coding or a bad or over-limit chunked body gets 400',
    maxBodyBytes: LIMIT,
    async run(ctx) {
      const cases: [string, Buffer, string][] = [
        [
          'gzip, chunked',
          rawRequest(
            'POST',
            '/refused',
            [
              ['Transfer-Encoding', 'gzip, chunked'],
              ['Content-Length', '3'],
            ],
            chunked('abc'),
          ),
          'unsupported Transfer-Encoding: expected "chunked", got "gzip, chunked"',
        ],
        [
          'bare LF',
          both('/refused', '3\nabc\n0\n\n', 'te-first'),
          'chunked body: expected CRLF line ends, got a bare LF',
        ],
        [
          'over the limit',
          both('/refused', chunked('x'.repeat(LIMIT), 'y'), 'cl-first'),
          `request JSON size of ${LIMIT + 1} bytes exceeds the maximum allowed input size of ` +
            `${LIMIT} bytes. Use --http-max-input-size to increase the limit.`,
        ],
      ];
      for (const [what, request, message] of cases) {
        const outcome = await sendAlone(ctx, request);
        if (ctx.impl.bothFramingHeaders === 'close') {
          assertDropped(ctx, outcome, '/refused');
          continue;
        }
        assert.equal(errorOf(outcome), message, what);
      }
      assert.equal(ctx.echo.calls.filter((c) => c.summary.path === '/refused').length, 0);
    },
  },
  {
    id: 'te-and-cl-stalled-body',
    title:
      'with both headers, a body that stalls is closed at the body timeout; handler not called',
    limits: { headersTimeoutMs: 1000, bodyTimeoutMs: 1000, keepAliveTimeoutMs: 1000 },
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      // Half a chunk, then nothing.
      await conn.send(both('/stalled', '10\r\nabcd', 'te-first'));
      const started = Date.now();
      assert.equal(await conn.next(), 'closed');
      const bound = (ctx.limits.bodyTimeoutMs ?? 0) * 3 + 5000;
      assert.ok(Date.now() - started < bound, `closed after ${Date.now() - started} ms`);
      conn.destroy();
      assert.equal(ctx.echo.calls.filter((c) => c.summary.path === '/stalled').length, 0);
    },
  },
  {
    id: 'te-and-cl-head-in-two-reads',
    title: 'with both headers, a head split across reads is refused (400 or close), never served',
    async run(ctx) {
      const request = both('/split', chunked('abc'), 'te-first');
      const cut = request.indexOf('Content-Length');
      const conn = await RawConnection.open(ctx.port);
      await conn.send(request.subarray(0, cut));
      // Long enough for the server to read the first part on its own.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await conn.send(request.subarray(cut));
      const outcome = await conn.next();
      // node's parser hands over only the second read, so the head cannot be re-read: the
      // takeover declines and node's refusal stands (docs/operations.md).
      if (outcome !== 'closed') assert.equal(outcome.status, 400);
      await conn.closed();
      conn.destroy();
      assert.equal(ctx.echo.calls.filter((c) => c.summary.path === '/split').length, 0);
    },
  },
  {
    id: 'te-and-cl-expect-continue',
    title: 'with both headers and Expect: 100-continue, the go-ahead comes before the body',
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      await conn.send(
        rawRequest('POST', '/continue', [
          ['Transfer-Encoding', 'chunked'],
          ['Content-Length', '5'],
          ['Expect', '100-continue'],
        ]),
      );
      const interim = await conn.next({ interim: true });
      if (ctx.impl.bothFramingHeaders === 'close') {
        assertDropped(ctx, interim, '/continue');
        conn.destroy();
        return;
      }
      assert.notEqual(interim, 'closed');
      if (interim !== 'closed') assert.equal(interim.status, 100);
      await conn.send(chunked('hello'));
      const final = await conn.response();
      assert.equal(final.status, 200);
      const summary = JSON.parse(final.body.toString()) as EchoSummary;
      assert.equal(summary.sha256, sha256(Buffer.from('hello')));
      await conn.closed();
      conn.destroy();
    },
  },
];
