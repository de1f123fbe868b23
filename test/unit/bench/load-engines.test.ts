// The load engines against a real local HTTP server (node:http on an ephemeral port): the closed
// loop keeps exactly N requests outstanding, the open loop measures from the intended send time
// so a server stall shows up in the latencies of every request it delayed, and failures are
// counted with the server's message.

import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildHttpRequest } from '../../../bench/load/http-request.js';
import { HttpLoadEngine } from '../../../bench/load/http-load-engine.js';
import { WindowRecorder } from '../../../bench/load/window-recorder.js';
import { decodeHistogram } from '../../../bench/measure/latency-histogram.js';

interface TestServer {
  port: number;
  inFlight: number;
  maxInFlight: number;
  received: number;
  /** Answers are held until this performance.now() time. */
  stallUntil: number;
  /** Every n-th request fails with 500 (0: never). */
  failEvery: number;
  /** Answers are held until this many requests wait, then all are sent (0: answer at once). */
  setGate(n: number): void;
  close(): Promise<void>;
}

function startServer(): Promise<TestServer> {
  const state = { inFlight: 0, maxInFlight: 0, received: 0, stallUntil: 0, failEvery: 0, gate: 0 };
  let held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    state.received += 1;
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const n = state.received;
    req.resume();
    req.on('end', () => {
      const answer = (): void => {
        state.inFlight -= 1;
        if (state.failEvery > 0 && n % state.failEvery === 0) {
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end('{"error":"injected failure"}');
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"outputs":[]}');
        }
      };
      const wait = state.stallUntil - performance.now();
      if (wait > 0) {
        setTimeout(answer, wait);
      } else if (state.gate > 0) {
        held.push(answer);
        if (held.length >= state.gate) {
          const all = held;
          held = [];
          for (const a of all) a();
        }
      } else {
        answer();
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve(
        Object.assign(state, {
          port,
          setGate: (n: number) => {
            state.gate = n;
            if (n === 0) {
              const all = held;
              held = [];
              for (const a of all) a();
            }
          },
          close: () =>
            new Promise<void>((r) => {
              server.closeAllConnections();
              server.close(() => r());
            }),
        }),
      );
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function engineFor(port: number): HttpLoadEngine {
  const body = { body: Buffer.from('{"inputs":[]}'), contentType: 'application/json' };
  return new HttpLoadEngine(
    {
      host: '127.0.0.1',
      port,
      requests: [buildHttpRequest('127.0.0.1', port, '/v2/models/m/infer', body)],
      maxConnections: 256,
      requestTimeoutMs: 10_000,
      sequences: null,
      cacheHits: null,
    },
    0,
  );
}

void describe('load engines', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.close();
  });

  void it('closed loop: exactly N requests outstanding, every answer recorded', async () => {
    server.maxInFlight = 0;
    server.received = 0;
    // The server answers only when 3 requests wait: the loop makes progress only if it keeps 3
    // outstanding, and maxInFlight would exceed 3 if it ever sent more.
    server.setGate(3);
    const engine = engineFor(server.port);
    const recorder = new WindowRecorder();
    await engine.start({ kind: 'concurrency', concurrency: 3 }, recorder);
    recorder.reset();
    while (server.received < 300) await sleep(10);
    server.setGate(0);
    await engine.stop();
    const w = recorder.take(engine.inFlight(), engine.queued());
    await engine.close();
    assert.equal(server.maxInFlight, 3);
    assert.equal(w.errors, 0);
    assert.ok(w.completed >= 290, `completed ${w.completed}`);
    assert.equal(decodeHistogram(w.histogram).totalCount, w.completed);
    assert.equal(w.inFlight, 0);
  });

  void it('open loop: a 300 ms stall shows in the latency of every request due during it', async () => {
    const engine = engineFor(server.port);
    const recorder = new WindowRecorder();
    await engine.start(
      { kind: 'request-rate', rate: 200, distribution: 'constant', seed: 1, phase: 0 },
      recorder,
    );
    recorder.reset();
    await sleep(150);
    server.stallUntil = performance.now() + 300;
    await sleep(500);
    await engine.stop();
    const w = recorder.take(engine.inFlight(), engine.queued());
    await engine.close();
    server.stallUntil = 0;
    const h = decodeHistogram(w.histogram);
    // About 60 requests were due during the stall; the ~40 due in its first 200 ms waited at least
    // 100 ms, counted from when they were due (noise can only make them later, never earlier).
    assert.ok(h.maxValue >= 250_000, `max ${h.maxValue} µs`);
    const slow = countAtLeast(h, 100_000);
    assert.ok(slow >= 20, `${slow} of ${h.totalCount} requests took >= 100 ms`);
    assert.equal(w.errors, 0);
  });

  void it('counts failures and keeps the first message', async () => {
    server.failEvery = 5;
    const engine = engineFor(server.port);
    const recorder = new WindowRecorder();
    const before = server.received;
    await engine.start({ kind: 'concurrency', concurrency: 2 }, recorder);
    while (server.received < before + 100) await sleep(10);
    await engine.stop();
    const w = recorder.take(0, 0);
    await engine.close();
    server.failEvery = 0;
    assert.ok(w.errors >= 15, `errors ${w.errors}`);
    assert.equal(w.errorSample, 'HTTP 500: {"error":"injected failure"}');
    assert.equal(decodeHistogram(w.histogram).totalCount, w.completed);
  });
});

/** How many recorded values are >= `us`: walks the ranks (HDR keeps counts, not samples). */
function countAtLeast(h: ReturnType<typeof decodeHistogram>, us: number): number {
  let below = 0;
  for (let k = 1; k <= h.totalCount; k += 1) {
    if (h.getValueAtPercentile((k / h.totalCount) * 100) < us) below = k;
  }
  return h.totalCount - below;
}
