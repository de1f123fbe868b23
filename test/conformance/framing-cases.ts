// Conformance cases about body framing and the size limit: over-limit bodies refused before they
// are read, chunked bodies counted as they arrive, and the request-smuggling shapes (conflicting or
// malformed framing headers, bytes past a Content-Length, a truncated body).

import assert from 'node:assert/strict';
import type { CaseContext, ConformanceCase } from './conformance-case.js';
import { sha256, type EchoSummary } from './echo-handler.js';
import { RawConnection, rawRequest, type RawOutcome } from './raw-http.js';

const LIMIT = 1024;

function limitMessage(size: string | number): string {
  return (
    `request JSON size of ${size} bytes exceeds the maximum allowed input size of ${LIMIT} ` +
    'bytes. Use --http-max-input-size to increase the limit.'
  );
}

function errorOf(outcome: RawOutcome): string {
  assert.notEqual(outcome, 'closed', 'expected a 400 reply, the connection was closed instead');
  if (outcome === 'closed') throw new Error('unreachable');
  assert.equal(outcome.status, 400);
  assert.equal(outcome.headers.get('content-type'), 'application/json');
  const body = JSON.parse(outcome.body.toString('utf8')) as { error?: unknown };
  assert.equal(typeof body.error, 'string');
  return body.error as string;
}

/** Sends `request` on a fresh connection and checks it was refused without reaching the handler. */
async function expectRefused(ctx: CaseContext, request: Buffer, what: string): Promise<RawOutcome> {
  const conn = await RawConnection.open(ctx.port);
  await conn.send(request);
  const outcome = await conn.next();
  if (outcome === 'closed') {
    assert.equal(
      ctx.impl.parserRefusal,
      'close',
      `${what}: closed without the 400 this adapter gives`,
    );
  } else {
    assert.equal(outcome.status, 400, `${what}: status`);
  }
  conn.destroy();
  await assertLive(ctx);
  assert.equal(
    ctx.echo.calls.filter((c) => c.summary.path === '/refused').length,
    0,
    `${what}: handler ran`,
  );
  return outcome;
}

/** A full request/response on a fresh connection: proves the server is up and processed earlier events. */
async function assertLive(ctx: CaseContext): Promise<void> {
  const conn = await RawConnection.open(ctx.port);
  await conn.send(rawRequest('GET', '/live'));
  assert.equal((await conn.response()).status, 200, 'the server still answers');
  conn.destroy();
}

export const FRAMING_CASES: readonly ConformanceCase[] = [
  {
    id: 'content-length-over-limit',
    title: 'Content-Length over the limit gets 400 from the headers alone, nothing allocated',
    maxBodyBytes: LIMIT,
    async run(ctx) {
      const before = process.memoryUsage().arrayBuffers;
      for (const size of [LIMIT + 1, 999_999_999]) {
        const conn = await RawConnection.open(ctx.port);
        // Headers only: the reply can only come back if the adapter decided before reading a body.
        await conn.send(rawRequest('POST', '/refused', [['Content-Length', String(size)]]));
        assert.equal(errorOf(await conn.next()), limitMessage(size));
        await conn.closed(); // the unread body must not be parsed as a next request
      }
      // A 999,999,999-byte buffer allocated from the header would show here (arrayBuffers counts
      // reserved backing stores whether or not the pages were touched).
      const grown = process.memoryUsage().arrayBuffers - before;
      assert.ok(grown < 64 * 1024 * 1024, `array buffers grew by ${grown} B`);
      assert.equal(ctx.echo.calls.length, 0, 'the handler must not run');
    },
  },
  {
    id: 'content-length-at-limit',
    title: 'a body of exactly the limit is accepted',
    maxBodyBytes: LIMIT,
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      const body = Buffer.alloc(LIMIT, 7);
      await conn.send(rawRequest('POST', '/at-limit', [['Content-Length', String(LIMIT)]], body));
      const summary = JSON.parse((await conn.response()).body.toString()) as EchoSummary;
      assert.equal(summary.sha256, sha256(body));
      conn.destroy();
    },
  },
  {
    id: 'chunked-over-limit',
    title: 'a chunked body passing the limit gets 400 as soon as it does; handler not called',
    maxBodyBytes: LIMIT,
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      // 1,024 bytes fit; the next 1-byte chunk does not. No terminating chunk is ever sent.
      await conn.send(rawRequest('POST', '/refused', [['Transfer-Encoding', 'chunked']]));
      await conn.send(`400\r\n${'x'.repeat(LIMIT)}\r\n`);
      await conn.send('1\r\ny\r\n');
      assert.equal(errorOf(await conn.next()), limitMessage(LIMIT + 1));
      await conn.closed();
      assert.equal(ctx.echo.calls.length, 0);
    },
  },
  {
    id: 'bytes-past-content-length',
    title: 'bytes past Content-Length never reach a handler as body',
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      await conn.send(rawRequest('POST', '/short', [['Content-Length', '3']], 'abcdefgh\r\n\r\n'));
      const first = await conn.next();
      // The first request is framed by its Content-Length: exactly "abc" (or the connection dies
      // first, when the excess is refused while the reply is in progress).
      if (first !== 'closed') {
        assert.equal(first.status, 200);
        assert.equal(
          (JSON.parse(first.body.toString()) as EchoSummary).sha256,
          sha256(Buffer.from('abc')),
        );
        // "defgh" is then a malformed next request. node's parser refuses it at once (400 or close);
        // uWS's parser stalls on it until its 10 s idle timeout, so for uWS this is not awaited.
        if (ctx.impl.parserRefusal === '400') {
          const second = await conn.next();
          if (second !== 'closed') assert.equal(second.status, 400);
        }
      }
      conn.destroy();
      await assertLive(ctx);
      for (const call of ctx.echo.calls.filter((c) => c.summary.path === '/short')) {
        assert.equal(call.summary.length, 3);
      }
      const paths = ctx.echo.calls.map((c) => c.summary.path);
      assert.ok(
        paths.every((p) => p === '/short' || p === '/live'),
        `only /short and /live may reach the handler, got ${paths.join(', ')}`,
      );
    },
  },
  {
    id: 'truncated-body',
    title: 'a body cut short by the client closing: handler not called, server live',
    async run(ctx) {
      const conn = await RawConnection.open(ctx.port);
      await conn.send(rawRequest('POST', '/truncated', [['Content-Length', '100']], '0123456789'));
      conn.end();
      assert.equal(await conn.next(), 'closed');
      await assertLive(ctx);
      assert.equal(ctx.echo.calls.filter((c) => c.summary.path === '/truncated').length, 0);
    },
  },
  {
    id: 'malformed-content-length',
    title: 'a non-numeric, signed or ten-digit-plus Content-Length is refused',
    async run(ctx) {
      for (const value of ['abc', '-1', '1000000000000000']) {
        await expectRefused(
          ctx,
          rawRequest('POST', '/refused', [['Content-Length', value]], 'abc'),
          value,
        );
      }
    },
  },
  {
    id: 'conflicting-content-length',
    title: 'two different Content-Length headers get 400',
    async run(ctx) {
      const request = rawRequest(
        'POST',
        '/refused',
        [
          ['Content-Length', '3'],
          ['Content-Length', '4'],
        ],
        'abcd',
      );
      const outcome = await expectRefused(ctx, request, 'CL 3 + CL 4');
      assert.notEqual(outcome, 'closed', 'both adapters see this one and answer 400');
    },
  },
  {
    id: 'repeated-host',
    title: 'two Host headers get 400 (RFC 9112 §3.2)',
    async run(ctx) {
      // rawRequest sends `Host: conformance`; this is the second.
      for (const host of ['conformance', 'elsewhere']) {
        const outcome = await expectRefused(
          ctx,
          rawRequest('GET', '/refused', [['Host', host]]),
          `Host twice (${host})`,
        );
        assert.notEqual(outcome, 'closed', 'both adapters answer 400');
        if (outcome !== 'closed') assert.equal(outcome.headers.get('connection'), 'close');
      }
    },
  },
  {
    id: 'unsupported-transfer-encoding',
    title: 'a Transfer-Encoding other than chunked gets 400',
    async run(ctx) {
      for (const te of ['gzip', 'gzip, chunked']) {
        const outcome = await expectRefused(
          ctx,
          rawRequest('POST', '/refused', [['Transfer-Encoding', te]], 'abcd'),
          te,
        );
        assert.notEqual(outcome, 'closed', `${te}: both adapters answer 400`);
      }
    },
  },
];

/**
 * Sends `refused` and a well-formed GET pipelined behind it in one write, and checks that the
 * refused request gets a 400 (or, where the library closes first, nothing) and that the follower is
 * never served: the connection closes, and the handler never sees the follower's path.
 */
async function expectNothingServedAfter(
  ctx: CaseContext,
  refused: Buffer,
  what: string,
): Promise<void> {
  const follower = rawRequest('GET', '/smuggled');
  const conn = await RawConnection.open(ctx.port);
  await conn.send(Buffer.concat([refused, follower]));
  const first = await conn.next();
  if (first !== 'closed') {
    assert.equal(first.status, 400, `${what}: status of the refused request`);
    assert.equal(first.headers.get('connection'), 'close', `${what}: Connection header`);
    const second = await conn.next();
    assert.equal(second, 'closed', `${what}: a second response came back on the connection`);
  } else {
    // Only an adapter that closes rather than pipeline behind a pending reply may skip the 400:
    // its rejection is written a turn later, and the follower's head closes the connection first.
    assert.equal(ctx.impl.asyncPipelining, 'close', `${what}: closed without the 400`);
  }
  await conn.closed();
  conn.destroy();
  await assertLive(ctx);
  const served = ctx.echo.calls.filter((c) => c.summary.path === '/smuggled').length;
  assert.equal(served, 0, `${what}: the pipelined request reached the handler`);
}

export const PIPELINED_AFTER_REFUSAL_CASES: readonly ConformanceCase[] = [
  {
    id: 'conflicting-content-length-pipelined',
    title: 'a request pipelined behind two conflicting Content-Lengths is never served',
    async run(ctx) {
      const refused = rawRequest(
        'POST',
        '/refused',
        [
          ['Content-Length', '2'],
          ['Content-Length', '40'],
        ],
        '{}',
      );
      await expectNothingServedAfter(ctx, refused, 'CL 2 + CL 40');
    },
  },
  {
    id: 'repeated-host-pipelined',
    title: 'a request pipelined behind two Host headers is never served',
    async run(ctx) {
      const refused = rawRequest('GET', '/refused', [['Host', 'elsewhere']]);
      await expectNothingServedAfter(ctx, refused, 'Host twice');
    },
  },
  {
    id: 'unknown-transfer-coding-pipelined',
    title: 'a request pipelined behind Transfer-Encoding: gzip, chunked is never served',
    async run(ctx) {
      const refused = rawRequest(
        'POST',
        '/refused',
        [['Transfer-Encoding', 'gzip, chunked']],
        '2\r\n{}\r\n0\r\n\r\n',
      );
      await expectNothingServedAfter(ctx, refused, 'TE gzip, chunked');
    },
  },
  {
    id: 'over-limit-pipelined',
    title: 'a request pipelined behind an over-limit Content-Length is never served',
    maxBodyBytes: LIMIT,
    async run(ctx) {
      const body = 'x'.repeat(LIMIT + 1);
      const refused = rawRequest('POST', '/refused', [['Content-Length', String(LIMIT + 1)]], body);
      await expectNothingServedAfter(ctx, refused, 'over-limit body');
    },
  },
  {
    id: 'chunked-over-limit-pipelined',
    title: 'a request pipelined behind a chunked body that passes the limit is never served',
    maxBodyBytes: LIMIT,
    async run(ctx) {
      const refused = rawRequest(
        'POST',
        '/refused',
        [['Transfer-Encoding', 'chunked']],
        `${(LIMIT + 1).toString(16)}\r\n${'x'.repeat(LIMIT + 1)}\r\n0\r\n\r\n`,
      );
      await expectNothingServedAfter(ctx, refused, 'chunked over limit');
    },
  },
];
