// Conformance cases about malformed chunked bodies (RFC 9112 §7.1): a chunk whose data is not
// followed by CRLF, bare LF line ends, a size that is not hexadecimal, a last chunk without its
// CRLF. Each is refused with 400 and `Connection: close`, the handler never sees it, and nothing
// sent after it on the connection is served: a front end that read such a body its own way would
// see a different next request than a proxy in front (request smuggling). Also trailer fields,
// which are legal: the request is answered and the connection never hangs on what follows.

import assert from 'node:assert/strict';
import type { CaseContext, ConformanceCase } from './conformance-case.js';
import { sha256, type EchoSummary } from './echo-handler.js';
import { RawConnection, rawRequest, type RawOutcome } from './raw-http.js';

/** Bodies sent with `Transfer-Encoding: chunked`; each breaks chunked framing once. */
export const CHUNKED_DEFECTS: readonly (readonly [string, string])[] = [
  ['XX in place of the CRLF after the data', '2\r\n{}XX0\r\n\r\n'],
  ['XX before the CRLF after the data', '2\r\n{}XX\r\n0\r\n\r\n'],
  ['bare LF line ends', '2\n{}\n0\n\n'],
  ['a size that is not hexadecimal', 'zz\r\n{}\r\n0\r\n\r\n'],
  ['a negative size', '-2\r\n{}\r\n0\r\n\r\n'],
  ['a size past 64 bits', '10000000000000002\r\n{}\r\n0\r\n\r\n'],
];

/**
 * A last chunk without its CRLF: alone it is only unfinished (the body timeout closes it), but the
 * next request's line then reads as a trailer field without a colon.
 */
export const NO_FINAL_CRLF: readonly [string, string] = [
  'no CRLF after the last chunk',
  '2\r\n{}\r\n0\r\n',
];

/** A chunked body with trailer fields: legal, so it is answered (or, by uWS, refused with 400). */
export const TRAILER_BODY = '5\r\nhello\r\n0\r\nX-Checksum: 1\r\nX-More: 2\r\n\r\n';

/** How long a connection may stay silent before the case calls it hung (no reply, no close). */
export const HANG_MS = 3000;

export function chunkedRequest(path: string, body: string): Buffer {
  return rawRequest('POST', path, [['Transfer-Encoding', 'chunked']], body);
}

/** The next outcome on `conn`, or 'hung' when the server neither answers nor closes in time. */
export async function nextOrHung(conn: RawConnection): Promise<RawOutcome | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      conn.next(),
      new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), HANG_MS))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The refusal of a malformed chunked request: a 400 with `Connection: close`, then the connection
 * closes. Only an adapter whose library closes rather than pipeline behind a pending reply may
 * close before the 400 is out, and only when bytes follow the refused request (see framing-cases).
 */
function assertRefused(ctx: CaseContext, outcome: RawOutcome | 'hung', what: string): void {
  assert.notEqual(outcome, 'hung', `${what}: no reply and no close within ${HANG_MS} ms`);
  if (outcome === 'hung') return;
  if (outcome === 'closed') {
    assert.equal(ctx.impl.asyncPipelining, 'close', `${what}: closed without the 400`);
    return;
  }
  assert.equal(outcome.status, 400, `${what}: status`);
  assert.equal(outcome.headers.get('connection'), 'close', `${what}: Connection header`);
}

export const CHUNKED_DEFECT_CASES: readonly ConformanceCase[] = [
  {
    id: 'chunked-defects-refused',
    title: 'each malformed chunked body alone gets 400 and the connection closes',
    async run(ctx) {
      for (const [what, body] of CHUNKED_DEFECTS) {
        const conn = await RawConnection.open(ctx.port);
        await conn.send(chunkedRequest('/refused', body));
        const outcome = await nextOrHung(conn);
        // A library whose own parser drops a connection it cannot parse (uWS, on a size that is not
        // hexadecimal) may do so before the adapter's 400 is out; nothing is served either way.
        if (outcome === 'closed') {
          assert.equal(ctx.impl.parserRefusal, 'close', `${what}: closed without the 400`);
        } else {
          assertRefused(ctx, outcome, what);
        }
        assert.equal(await nextOrHung(conn), 'closed', `${what}: the connection stays open`);
        conn.destroy();
      }
      const reached = ctx.echo.calls.filter((c) => c.summary.path === '/refused').length;
      assert.equal(reached, 0, 'a malformed body reached the handler');
    },
  },
  {
    id: 'chunked-defects-pipelined',
    title: 'a request pipelined behind a malformed chunked body never gets a response',
    async run(ctx) {
      for (const [what, body] of [...CHUNKED_DEFECTS, NO_FINAL_CRLF]) {
        const conn = await RawConnection.open(ctx.port);
        await conn.send(
          Buffer.concat([chunkedRequest('/refused', body), rawRequest('GET', '/smuggled')]),
        );
        assertRefused(ctx, await nextOrHung(conn), what);
        assert.equal(await nextOrHung(conn), 'closed', `${what}: a second response came back`);
        conn.destroy();
      }
      const paths = ctx.echo.calls.map((c) => c.summary.path);
      assert.ok(!paths.includes('/refused'), 'a malformed body reached the handler');
      assert.ok(!paths.includes('/smuggled'), 'the pipelined request was served');
    },
  },
  {
    id: 'chunked-trailer-pipelined',
    title: 'a chunked body with trailer fields is answered, and what follows it never hangs',
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      await conn.send(
        Buffer.concat([
          chunkedRequest('/trailer', TRAILER_BODY),
          rawRequest('GET', '/after-trailer'),
        ]),
      );
      const first = await nextOrHung(conn);
      if (ctx.impl.chunkedBodies === 'refused') {
        assertRefused(ctx, first, 'trailer');
        assert.equal(await nextOrHung(conn), 'closed', 'a second response came back');
        assert.equal(ctx.echo.calls.length, 0, 'the handler ran');
        conn.destroy();
        return;
      }
      assert.ok(first !== 'hung' && first !== 'closed', 'the trailer request was not answered');
      assert.equal(first.status, 200);
      const summary = JSON.parse(first.body.toString()) as EchoSummary;
      assert.equal(summary.sha256, sha256(Buffer.from('hello')));
      // The follower is served in turn, or (an adapter that does not pipeline behind an
      // asynchronous reply) the connection closes; it never hangs.
      const second = await nextOrHung(conn);
      assert.notEqual(second, 'hung', 'the request after the trailer hung');
      if (second !== 'hung' && second !== 'closed') {
        assert.equal(second.status, 200);
        assert.equal((JSON.parse(second.body.toString()) as EchoSummary).path, '/after-trailer');
      } else {
        assert.equal(ctx.impl.asyncPipelining, 'close', 'closed instead of answering in turn');
      }
      conn.destroy();
    },
  },
];
