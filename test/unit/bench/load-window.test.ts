// The timed load windows of the noisy-neighbour, shadow and ensemble benches, against a real HTTP
// server on an ephemeral port that answers by the request's path: what they count, what they drop
// as warm-up, and the percentiles they report.

import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  closedLoop,
  latencyFigures,
  openLoop,
  percentile,
  postJson,
  type HttpTarget,
} from '../../../bench/measure/load-window.js';

void describe('load windows', () => {
  let server: http.Server;
  let target: HttpTarget;
  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // `/status/<n>` answers n; anything else echoes the body with the tenant header.
        const status = /^\/status\/(\d+)$/.exec(req.url ?? '')?.[1];
        res.writeHead(status === undefined ? 200 : Number(status));
        res.end(`${req.headers['x-tenant'] ?? ''}:${Buffer.concat(chunks).toString()}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    target = { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  void it('postJson answers status and body, with the extra headers sent', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const reply = await postJson(agent, target, '/echo', Buffer.from('{"a":1}'), {
      'x-tenant': 'B',
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.toString(), 'B:{"a":1}');
    assert.equal((await postJson(agent, target, '/status/429', Buffer.from('{}'))).status, 429);
    agent.destroy();
  });

  void it('closedLoop numbers requests per client and counts rejections as errors', async () => {
    const seen = new Set<number>();
    const w = await closedLoop(3, 0.05, 0.2, async (agent, k) => {
      seen.add(k);
      if (k % 2 === 1) throw new Error('odd');
      await postJson(agent, target, '/echo', Buffer.from('{}'));
    });
    assert.ok(w.latencies.length > 0, 'some requests were measured');
    assert.ok(w.errors > 0, 'the odd-numbered ones failed');
    assert.ok(
      w.latencies.every((ms) => ms >= 0 && ms <= 200),
      'within the measured window',
    );
    // Client c sends c, c + 3, c + 6, ... with none skipped.
    for (const c of [0, 1, 2]) {
      const ks = [...seen].filter((k) => k % 3 === c).sort((a, b) => a - b);
      assert.deepEqual(
        ks,
        ks.map((_, j) => c + 3 * j),
      );
    }
  });

  void it('closedLoop leaves the warm-up out', async () => {
    let calls = 0;
    const w = await closedLoop(1, 0.15, 0.05, async () => {
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
    assert.ok(calls > w.latencies.length + 5, `${calls} calls, ${w.latencies.length} measured`);
  });

  void it('openLoop sends at its rate and counts answers by status (0: none came)', async () => {
    const paths = ['/echo', '/status/429', '/echo', 'unreachable'];
    let i = 0;
    const w = await openLoop(100, 0.2, (agent) => {
      const path = paths[i++ % paths.length] as string;
      if (path === 'unreachable') return Promise.reject(new Error('refused'));
      return postJson(agent, target, path, Buffer.from('{}'));
    });
    assert.equal(w.sent, 20);
    assert.deepEqual(
      [...w.statuses].sort(([a], [b]) => a - b),
      [
        [0, 5],
        [200, 10],
        [429, 5],
      ],
    );
    assert.equal(w.latencies.length, 10, 'latencies of 200s only');
  });

  void it('percentile takes the nearest rank below; latencyFigures sorts and rates', () => {
    const sorted = Array.from({ length: 100 }, (_, k) => k + 1);
    assert.equal(percentile(sorted, 50), 51);
    assert.equal(percentile(sorted, 99), 100);
    assert.equal(percentile(sorted, 100), 100);
    assert.equal(percentile([], 99), 0);
    assert.deepEqual(latencyFigures([3, 1, 2, 4], 2), {
      requests: 4,
      perSec: 2,
      p50Ms: 3,
      p99Ms: 4,
    });
  });
});
