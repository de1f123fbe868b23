// The N-process reference's load split: a generator thread's share divided over several servers
// (whole connections, rates with interleaved phases, remainders rotated by thread), and a sharded
// HTTP engine against two real local servers, each getting its half and one window counting both.

import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpLoadEngine, type HttpEngineInit } from '../../../bench/load/http-load-engine.js';
import { buildHttpRequest } from '../../../bench/load/http-request.js';
import { splitLevel, type LoadShare } from '../../../bench/load/messages.js';
import {
  isSharded,
  ShardedEngine,
  shardedEngine,
  splitShare,
} from '../../../bench/load/sharded-engine.js';
import { WindowRecorder } from '../../../bench/load/window-recorder.js';

const concurrencies = (shares: readonly LoadShare[]): number[] =>
  shares.map((s) => (s.kind === 'concurrency' ? s.concurrency : Number.NaN));

void describe('splitShare', () => {
  void it('splits concurrency by whole connections, the remainder to the first servers', () => {
    assert.deepEqual(
      concurrencies(splitShare({ kind: 'concurrency', concurrency: 64 }, 2)),
      [32, 32],
    );
    assert.deepEqual(
      concurrencies(splitShare({ kind: 'concurrency', concurrency: 7 }, 3)),
      [3, 2, 2],
    );
    // Fewer connections than servers: the last servers get none.
    assert.deepEqual(
      concurrencies(splitShare({ kind: 'concurrency', concurrency: 1 }, 4)),
      [1, 0, 0, 0],
    );
  });

  void it('rotates the remainder by thread, so small levels still reach every server', () => {
    // Two threads at concurrency 2 over two servers: one connection on each server.
    const threads = splitLevel({ kind: 'concurrency', concurrency: 2 }, 2);
    const perServer = [0, 0];
    threads.forEach((share, t) => {
      concurrencies(splitShare(share, 2, t)).forEach((c, s) => {
        perServer[s] = (perServer[s] ?? 0) + c;
      });
    });
    assert.deepEqual(perServer, [1, 1]);
    assert.deepEqual(
      concurrencies(splitShare({ kind: 'concurrency', concurrency: 7 }, 3, 1)),
      [2, 3, 2],
    );
  });

  void it('splits a rate evenly, interleaving constant arrivals and seeding each server apart', () => {
    const shares = splitShare(
      { kind: 'request-rate', rate: 900, distribution: 'constant', seed: 5, phase: 0.5 },
      3,
    );
    assert.deepEqual(
      shares.map((s) => (s.kind === 'request-rate' ? [s.rate, s.phase, s.seed] : [])),
      [
        [300, 0.5 / 3, 5 * 1009],
        [300, 1.5 / 3, 5 * 1009 + 1],
        [300, 2.5 / 3, 5 * 1009 + 2],
      ],
    );
  });

  void it('is the identity for one server', () => {
    const share: LoadShare = { kind: 'concurrency', concurrency: 5 };
    assert.deepEqual(splitShare(share, 1, 3), [share]);
  });
});

interface Counting {
  readonly port: number;
  received: number;
  close(): Promise<void>;
}

function countingServer(): Promise<Counting> {
  const state = { received: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        get received() {
          return state.received;
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function init(port: number): HttpEngineInit {
  const body = { body: Buffer.from('{}'), contentType: 'application/json' };
  return {
    host: '127.0.0.1',
    port,
    requests: [buildHttpRequest('127.0.0.1', port, '/v2/models/m/infer', body)],
    maxConnections: 16,
    requestTimeoutMs: 5000,
    sequences: null,
    cacheHits: null,
  };
}

void describe('ShardedEngine', () => {
  const servers: Counting[] = [];
  before(async () => {
    servers.push(await countingServer(), await countingServer());
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  void it('recognises several servers’ settings, and builds the plain engine for one', () => {
    const [a, b] = servers.map((s) => init(s.port)) as [HttpEngineInit, HttpEngineInit];
    assert.equal(isSharded(a), false);
    assert.equal(isSharded({ shards: [a, b] }), true);
    const made: number[] = [];
    const one = shardedEngine({ shards: [a] }, 0, (e) => {
      made.push(e.port);
      return new HttpLoadEngine(e, 0);
    });
    assert.ok(one instanceof HttpLoadEngine);
    assert.ok(
      shardedEngine({ shards: [a, b] }, 0, (e) => new HttpLoadEngine(e, 0)) instanceof
        ShardedEngine,
    );
    assert.deepEqual(made, [servers[0]?.port]);
  });

  void it('keeps its share in flight on every server and counts them in one window', async () => {
    const engine = shardedEngine(
      { shards: servers.map((s) => init(s.port)) },
      0,
      (e) => new HttpLoadEngine(e, 0),
    );
    const recorder = new WindowRecorder();
    await engine.start({ kind: 'concurrency', concurrency: 4 }, recorder);
    assert.equal(engine.inFlight(), 4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await engine.stop();
    const window = recorder.take(0, 0);
    const [a, b] = servers.map((s) => s.received);
    assert.ok((a ?? 0) > 0 && (b ?? 0) > 0, `both servers served: ${a} and ${b}`);
    assert.equal(window.completed, (a ?? 0) + (b ?? 0));
    assert.equal(window.errors, 0);
    await engine.close();
  });

  void it('leaves a server without a share idle', async () => {
    const before = servers.map((s) => s.received);
    const engine = new ShardedEngine(
      servers.map((s) => new HttpLoadEngine(init(s.port), 0)),
      0,
    );
    const recorder = new WindowRecorder();
    await engine.start({ kind: 'concurrency', concurrency: 1 }, recorder);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await engine.stop();
    assert.ok((servers[0]?.received ?? 0) > (before[0] ?? 0));
    assert.equal(servers[1]?.received, before[1]);
    await engine.close();
  });
});
