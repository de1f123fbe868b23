// Conformance cases about data getting through intact: request-line and header routing data,
// binary bodies both ways, replies given as chunk lists, chunked uploads, and connection reuse and
// concurrency. Clients are fetch (undici) and, where framing is the point, raw sockets.

import assert from 'node:assert/strict';
import { payload, type ConformanceCase } from './conformance-case.js';
import { sha256, type EchoSummary } from './echo-handler.js';
import { RawConnection, rawRequest } from './raw-http.js';

async function fetchBytes(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; headers: Headers; body: Uint8Array }> {
  const response = await fetch(url, init);
  return {
    status: response.status,
    headers: response.headers,
    body: new Uint8Array(await response.arrayBuffer()),
  };
}

function echoOf(headers: Headers | ReadonlyMap<string, string>): EchoSummary {
  const raw = headers.get('x-echo');
  assert.ok(raw !== null && raw !== undefined, 'the reply must carry the x-echo summary header');
  return JSON.parse(raw) as EchoSummary;
}

function jsonOf(body: Uint8Array): EchoSummary {
  return JSON.parse(Buffer.from(body).toString('utf8')) as EchoSummary;
}

const MiB = 1024 * 1024;

export const TRANSFER_CASES: readonly ConformanceCase[] = [
  {
    id: 'routing',
    title: 'method, raw path, raw query and headers reach the handler intact',
    async run({ url }) {
      const get = await fetchBytes(url('/v2/models/m%20x/versions/3/ready?a=1&b=%2F&c'), {
        headers: { 'x-request-id': 'req-42', 'x-multi': 'one' },
      });
      assert.equal(get.status, 200);
      assert.equal(get.headers.get('content-type'), 'application/json');
      const g = jsonOf(get.body);
      assert.equal(g.method, 'GET');
      assert.equal(g.path, '/v2/models/m%20x/versions/3/ready', 'path is not percent-decoded');
      assert.equal(g.query, 'a=1&b=%2F&c');
      assert.equal(g.headers['x-request-id'], 'req-42');
      assert.equal(g.length, 0);

      const json = JSON.stringify({
        inputs: [{ name: 'INPUT0', shape: [2], datatype: 'FP32', data: [1, 2] }],
      });
      const post = await fetchBytes(url('/v2/models/simple/infer'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: json,
      });
      const p = jsonOf(post.body);
      assert.equal(p.method, 'POST');
      assert.equal(p.path, '/v2/models/simple/infer');
      assert.equal(p.query, '');
      assert.equal(p.headers['content-type'], 'application/json');
      assert.equal(p.length, Buffer.byteLength(json));
      assert.equal(p.sha256, sha256(Buffer.from(json)));

      const del = jsonOf((await fetchBytes(url('/x'), { method: 'DELETE' })).body);
      assert.equal(del.method, 'DELETE');
    },
  },
  {
    id: 'repeated-headers',
    title: 'a repeated request header arrives as one value joined with ", "',
    async run({ port }) {
      const conn = await RawConnection.open(port);
      await conn.send(
        rawRequest('GET', '/echo', [
          ['X-Multi', 'a'],
          ['x-multi', 'b'],
        ]),
      );
      const summary = jsonOf((await conn.response()).body);
      assert.equal(summary.headers['x-multi'], 'a, b');
      conn.destroy();
    },
  },
  {
    id: 'binary-round-trip',
    title: 'binary bodies of 0 B, 1 B, 64 KiB, 5 MiB and 40 MiB round-trip exactly both ways',
    async run({ url }) {
      for (const size of [0, 1, 64 * 1024, 5 * MiB, 40 * MiB]) {
        const sent = payload(size);
        const got = await fetchBytes(url('/bytes'), { method: 'POST', body: sent });
        assert.equal(got.status, 200, `status for ${size} B`);
        const echo = echoOf(got.headers);
        assert.equal(echo.length, size, `handler saw ${echo.length} B of ${size}`);
        assert.equal(echo.sha256, sha256(sent), `request body checksum for ${size} B`);
        assert.equal(got.body.byteLength, size, `reply length for ${size} B`);
        assert.equal(sha256(got.body), sha256(sent), `reply body checksum for ${size} B`);
      }
    },
  },
  {
    id: 'reply-chunk-list',
    title: 'a reply given as a list of chunks (also SharedArrayBuffer views) arrives concatenated',
    async run({ url, echo }) {
      const sent = payload(5 * MiB + 3);
      for (const query of ['chunks=7', 'chunks=64&shared=1', 'chunks=1&shared=1']) {
        const got = await fetchBytes(url(`/bytes?${query}`), { method: 'POST', body: sent });
        assert.equal(got.body.byteLength, sent.byteLength, query);
        assert.equal(sha256(got.body), sha256(sent), query);
      }
      const edges = await fetchBytes(url('/chunk-edges'));
      assert.equal(
        Buffer.from(edges.body).toString(),
        'abc',
        'empty chunks are skipped, order kept',
      );
      const empty = await fetchBytes(url('/empty-list'));
      assert.equal(empty.status, 204);
      assert.equal(empty.body.byteLength, 0);
      assert.equal(await echo.finishOf('/chunk-edges'), true, 'onFinished(true) once delivered');
    },
  },
  {
    id: 'chunked-under-limit',
    title: 'a chunked upload under the limit arrives whole',
    async run({ url }) {
      const sent = payload(3 * MiB + 17);
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < sent.byteLength; at += 100_003)
        pieces.push(sent.subarray(at, at + 100_003));
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = pieces.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      });
      // A stream body has no known length, so undici sends Transfer-Encoding: chunked.
      const init = { method: 'POST', body: stream, duplex: 'half' } as RequestInit;
      const got = await fetchBytes(url('/bytes'), init);
      assert.equal(got.status, 200);
      const echo = echoOf(got.headers);
      assert.equal(echo.length, sent.byteLength);
      assert.equal(echo.sha256, sha256(sent));
    },
  },
  {
    id: 'many-tiny-chunks',
    title: "a million one-byte chunks: refused with a 400 past Triton's 65,536; live afterwards",
    async run({ port, url }) {
      const conn = await RawConnection.open(port);
      await conn.send(rawRequest('POST', '/echo', [['Transfer-Encoding', 'chunked']]));
      // 1,000 writes of 1,000 one-byte chunks; the server refuses past the 65,536th piece, so the
      // writes after that may fail (the connection is closed): only the reply matters.
      const block = '1\r\na\r\n'.repeat(1000);
      const started = Date.now();
      for (let i = 0; i < 1000; i += 1) {
        try {
          await conn.send(block);
        } catch {
          break;
        }
      }
      const reply = await conn.next();
      if (reply !== 'closed') {
        assert.equal(reply.status, 400);
        assert.equal(
          (JSON.parse(reply.body.toString()) as { error: string }).error,
          'Chunked request body exceeds maximum of 65536 non-empty chunks. Send fewer or larger HTTP chunks.',
        );
      }
      conn.destroy();
      assert.equal((await fetchBytes(url('/after'))).status, 200, 'the server still answers');
      // Not a timing assertion on the server: a bound that only a missing budget could break (the
      // unbounded read took 9-12 s).
      assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`);
    },
  },
  {
    id: 'large-chunks-within-budget',
    title: '2,000 chunks of 2 KiB arrive whole',
    async run({ port }) {
      const conn = await RawConnection.open(port);
      await conn.send(rawRequest('POST', '/echo', [['Transfer-Encoding', 'chunked']]));
      const piece = Buffer.alloc(2048, 98);
      const chunk = Buffer.concat([Buffer.from('800\r\n'), piece, Buffer.from('\r\n')]);
      for (let i = 0; i < 2000; i += 1) await conn.send(chunk);
      await conn.send('0\r\n\r\n');
      const summary = jsonOf((await conn.response()).body);
      assert.equal(summary.length, 2000 * 2048);
      conn.destroy();
    },
  },
  {
    id: 'many-chunks-within-cap',
    title: '20,000 one-byte chunks (under the cap, as Triton accepts them) arrive whole',
    async run({ port }) {
      const conn = await RawConnection.open(port);
      await conn.send(rawRequest('POST', '/echo', [['Transfer-Encoding', 'chunked']]));
      const block = '1\r\nb\r\n'.repeat(1000);
      for (let i = 0; i < 20; i += 1) await conn.send(block);
      await conn.send('0\r\n\r\n');
      const reply = await conn.response();
      assert.equal(reply.status, 200);
      assert.equal(jsonOf(reply.body).length, 20_000);
      conn.destroy();
    },
  },
  {
    id: 'keep-alive-sequential',
    title: '100 sequential requests on one keep-alive connection',
    async run({ port }) {
      const conn = await RawConnection.open(port);
      for (let i = 0; i < 100; i += 1) {
        const body = `request ${i}`;
        await conn.send(
          rawRequest('POST', `/seq/${i}`, [['Content-Length', String(body.length)]], body),
        );
        const reply = await conn.response();
        assert.equal(reply.status, 200);
        const summary = jsonOf(reply.body);
        assert.equal(summary.path, `/seq/${i}`);
        assert.equal(summary.sha256, sha256(Buffer.from(body)));
      }
      conn.destroy();
    },
  },
  {
    id: 'pipelined',
    title: 'three requests sent in one write: answered in order, or the connection closed',
    async run({ port, url, echo, impl }) {
      const conn = await RawConnection.open(port);
      await conn.send(
        Buffer.concat([
          rawRequest('GET', '/p/1'),
          rawRequest('POST', '/p/2', [['Content-Length', '3']], 'abc'),
          rawRequest('GET', '/p/3'),
        ]),
      );
      if (impl.asyncPipelining === 'in-order') {
        for (const expected of ['/p/1', '/p/2', '/p/3']) {
          assert.equal(jsonOf((await conn.response()).body).path, expected);
        }
      } else {
        // No reply may come out of order or half-written: the connection just ends, and a call
        // that was already running sees its signal abort.
        assert.equal(await conn.next(), 'closed');
        for (const call of echo.calls.filter((c) => c.summary.path.startsWith('/p/'))) {
          assert.equal(call.signal.aborted, true, `${call.summary.path} must be aborted`);
        }
        assert.equal((await fetchBytes(url('/after'))).status, 200, 'the server still answers');
      }
      conn.destroy();
    },
  },
  {
    id: 'concurrent-connections',
    title: '50 connections in flight at once (the handler waits until all 50 have arrived)',
    async run({ port }) {
      const connections = await Promise.all(
        Array.from({ length: 50 }, () => RawConnection.open(port)),
      );
      // The barrier only opens when 50 calls are inside the handler together, so an adapter that
      // served connections one at a time would hang here instead of passing.
      await Promise.all(connections.map((c) => c.send(rawRequest('GET', '/barrier/50'))));
      const replies = await Promise.all(connections.map((c) => c.response()));
      for (const reply of replies) assert.equal(reply.status, 200);
      for (const c of connections) c.destroy();
    },
  },
  {
    id: 'expect-continue',
    title: 'Expect: 100-continue gets the interim response, then the body is read',
    async run({ port }) {
      const conn = await RawConnection.open(port);
      await conn.send(
        rawRequest('POST', '/echo', [
          ['Content-Length', '5'],
          ['Expect', '100-continue'],
        ]),
      );
      const interim = await conn.response({ interim: true });
      assert.equal(interim.status, 100);
      await conn.send('hello');
      const summary = jsonOf((await conn.response()).body);
      assert.equal(summary.sha256, sha256(Buffer.from('hello')));
      conn.destroy();
    },
  },
  {
    id: 'handler-failure',
    title: 'a handler that throws gets 500 {"error":"internal error"} without its message',
    async run({ url }) {
      const got = await fetchBytes(url('/throw'));
      assert.equal(got.status, 500);
      const text = Buffer.from(got.body).toString();
      assert.deepEqual(JSON.parse(text), { error: 'internal error' });
      const bad = await fetchBytes(url('/bad-header'));
      assert.equal(bad.status, 500, 'a reply header with CR LF is refused, not written');
      assert.equal(bad.headers.get('set-cookie'), null);
    },
  },
];
