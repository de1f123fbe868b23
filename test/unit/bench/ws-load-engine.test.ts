// The WebSocket load engine against real servers: a `ws` server whose answers the test controls
// (held, reordered, dropped, failed) for the id bookkeeping, and infernode started in this process
// for the real protocol. Asserts counts and ids, never speed.

import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Packr, Unpackr } from 'msgpackr';
import { WebSocketServer, type WebSocket } from 'ws';
import { WindowRecorder } from '../../../bench/load/window-recorder.js';
import { socketCount } from '../../../bench/load/multiplexed-closed-loop.js';
import { WsLoadEngine, type WsEngineInit } from '../../../bench/load/ws-load-engine.js';
import { wsRequestPayload } from '../../../bench/load/ws-request.js';
import { decodeHistogram } from '../../../bench/measure/latency-histogram.js';
import type { InputSet } from '../../../bench/model/input-data.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../../src/websocket/ws-protocol.js';
import { copyModel, tempRepository } from '../../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor as waitForValue } from '../../helpers/wait-for.js';

const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const SIMPLE: InputSet = ['INPUT0', 'INPUT1'].map((name) => ({
  name,
  datatype: 'INT32' as const,
  shape: [1, 16],
  elements: Array.from({ length: 16 }, (_, i) => i),
}));

interface Held {
  readonly socket: WebSocket;
  readonly id: number;
}

/** A WebSocket server speaking the msgpack subprotocol, with answers under the test's control. */
class FakeServer {
  readonly wss: WebSocketServer;
  port = 0;
  connections = 0;
  received = 0;
  inFlight = 0;
  maxInFlight = 0;
  cancels: number[] = [];
  /** Ids in flight right now, per socket: a duplicate would be an id reused while pending. */
  readonly live = new Map<WebSocket, Set<number>>();
  duplicates = 0;
  /** Answers are held until this many wait, then sent newest first (0: answer at once). */
  gate = 0;
  /** Requests with this id are never answered. */
  dropId = -1;
  /** Every n-th request is answered with an error frame (0: never). */
  failEvery = 0;
  private held: Held[] = [];

  constructor() {
    this.wss = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      path: WS_PATH,
      handleProtocols: (protocols) => (protocols.has(MSGPACK_PROTOCOL) ? MSGPACK_PROTOCOL : false),
    });
    this.wss.on('connection', (socket) => {
      this.connections += 1;
      this.live.set(socket, new Set());
      socket.on('message', (data: Buffer) => this.onFrame(socket, data));
    });
  }

  async listening(): Promise<this> {
    if (this.wss.address() === null) await new Promise((r) => this.wss.once('listening', r));
    this.port = (this.wss.address() as AddressInfo).port;
    return this;
  }

  release(): void {
    const all = this.held.reverse();
    this.held = [];
    for (const h of all) this.answer(h);
  }

  close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    return new Promise((r) => this.wss.close(() => r()));
  }

  private onFrame(socket: WebSocket, data: Buffer): void {
    const doc = unpackr.unpack(data) as { id: number; cancel?: boolean; model?: string };
    if (doc.cancel === true) {
      this.cancels.push(doc.id);
      return;
    }
    assert.equal(doc.model, 'simple');
    const ids = this.live.get(socket) as Set<number>;
    if (ids.has(doc.id)) this.duplicates += 1;
    ids.add(doc.id);
    this.received += 1;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (doc.id === this.dropId) return;
    const h = { socket, id: doc.id };
    if (this.gate > 0) {
      this.held.push(h);
      if (this.held.length >= this.gate) this.release();
    } else {
      this.answer(h);
    }
  }

  private answer(h: Held): void {
    this.inFlight -= 1;
    this.live.get(h.socket)?.delete(h.id);
    const fail = this.failEvery > 0 && this.received % this.failEvery === 0;
    const doc = fail
      ? { id: h.id, error: { code: 'INFER_FAILED', message: 'injected failure' } }
      : { id: h.id, model_name: 'simple', model_version: '1', outputs: [] };
    h.socket.send(packr.pack(doc));
  }
}

function engineInit(port: number, over: Partial<WsEngineInit> = {}): WsEngineInit {
  return {
    host: '127.0.0.1',
    port,
    path: WS_PATH,
    subprotocol: MSGPACK_PROTOCOL,
    requests: [wsRequestPayload('simple', '', SIMPLE)],
    sockets: 0,
    maxConnections: 16,
    requestTimeoutMs: 10_000,
    ...over,
  };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i += 1) await sleep(5);
  assert.ok(check(), `timed out waiting for ${what}`);
}

void describe('WebSocket load engine, controlled server', () => {
  let fake: FakeServer;
  before(async () => {
    fake = await new FakeServer().listening();
  });
  after(async () => {
    await fake.close();
  });

  void it('spreads N outstanding over one socket per 64, never reusing a pending id', async () => {
    assert.deepEqual(
      [1, 64, 65, 130, 256].map((n) => socketCount(n, 0)),
      [1, 1, 2, 3, 4],
    );
    assert.deepEqual([socketCount(10, 4), socketCount(2, 4)], [4, 2]);
    fake.connections = 0;
    fake.received = 0;
    fake.maxInFlight = 0;
    // Answers only once all 130 wait, newest first: progress needs exactly 130 outstanding, and
    // every answer arrives out of order relative to its socket's sends.
    fake.gate = 130;
    const engine = new WsLoadEngine(engineInit(fake.port), 0);
    const recorder = new WindowRecorder();
    await engine.start({ kind: 'concurrency', concurrency: 130 }, recorder);
    recorder.reset();
    await waitFor(() => fake.received >= 130 * 8, '8 rounds');
    fake.gate = 0;
    fake.release();
    await engine.stop();
    const w = recorder.take(engine.inFlight(), engine.queued());
    await engine.close();
    assert.equal(fake.connections, 3);
    assert.equal(fake.maxInFlight, 130);
    assert.equal(fake.duplicates, 0);
    assert.equal(w.errors, 0, w.errorSample ?? '');
    assert.ok(w.completed >= 130 * 7, `completed ${w.completed}`);
    assert.equal(decodeHistogram(w.histogram).totalCount, w.completed);
    assert.equal(w.inFlight, 0);
    assert.equal(w.queued, 0);
  });

  void it('counts error frames with their code and message', async () => {
    fake.failEvery = 4;
    const engine = new WsLoadEngine(engineInit(fake.port, { sockets: 2 }), 0);
    const recorder = new WindowRecorder();
    const start = fake.received;
    await engine.start({ kind: 'concurrency', concurrency: 3 }, recorder);
    recorder.reset();
    await waitFor(() => fake.received >= start + 200, '200 requests');
    await engine.stop();
    const w = recorder.take(0, 0);
    await engine.close();
    fake.failEvery = 0;
    assert.ok(w.errors >= 40, `errors ${w.errors}`);
    assert.equal(w.errorSample, 'INFER_FAILED: injected failure');
    assert.equal(decodeHistogram(w.histogram).totalCount, w.completed);
  });

  void it('times out an unanswered request, cancels it on the server, and keeps N in flight', async () => {
    fake.cancels = [];
    // Each socket's ids start at 1; the third request of the only socket is never answered.
    fake.dropId = 3;
    const engine = new WsLoadEngine(engineInit(fake.port, { requestTimeoutMs: 150 }), 0);
    const recorder = new WindowRecorder();
    await engine.start({ kind: 'concurrency', concurrency: 2 }, recorder);
    recorder.reset();
    await waitFor(() => fake.cancels.length === 1, 'the cancel frame');
    const before = fake.received;
    await waitFor(() => fake.received >= before + 50, 'load after the timeout');
    await engine.stop();
    const w = recorder.take(0, 0);
    await engine.close();
    fake.dropId = -1;
    assert.deepEqual(fake.cancels, [3]);
    assert.equal(w.errors, 1);
    assert.equal(w.errorSample, 'no response within 150 ms');
    assert.ok(w.completed >= 50);
  });

  void it('open loop: sends on schedule over a socket that carries many requests at once', async () => {
    fake.connections = 0;
    // Hold answers until 10 wait: an open loop keeps sending meanwhile, so latencies count from
    // the intended send times and include the hold.
    fake.gate = 10;
    const engine = new WsLoadEngine(engineInit(fake.port), 0);
    const recorder = new WindowRecorder();
    const start = fake.received;
    await engine.start(
      { kind: 'request-rate', rate: 200, distribution: 'constant', seed: 1, phase: 0 },
      recorder,
    );
    recorder.reset();
    await waitFor(() => fake.received >= start + 60, '60 requests');
    fake.gate = 0;
    fake.release();
    await engine.stop();
    const w = recorder.take(engine.inFlight(), engine.queued());
    await engine.close();
    assert.equal(fake.connections, 1);
    assert.equal(w.errors, 0, w.errorSample ?? '');
    assert.ok(w.completed >= 60);
    // The first of each held group of 10 waited for 9 more arrivals 5 ms apart: >= 40 ms.
    assert.ok(decodeHistogram(w.histogram).maxValue >= 40_000);
  });
});

void describe('WebSocket load engine, infernode in-process', () => {
  let t: TestServer;
  let port: number;
  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({ modelRepositories: [repo] });
    port = Number(new URL(t.base).port);
  });
  after(async () => {
    await t.close();
  });

  /** simple's answered (success) and failed request counts, from the server's statistics. */
  async function simpleCounts(): Promise<{ success: number; fail: number }> {
    const doc = (await (await fetch(`${t.base}/v2/models/simple/stats`)).json()) as any;
    const s = doc.model_stats[0].inference_stats;
    return { success: s.success.count, fail: s.fail.count };
  }

  /**
   * Lets the engine run until the server has counted `n` more of `kind` than now, rather than for a
   * fixed time: what has run by then does not depend on the machine's speed. Call it after the
   * recorder's reset, so that everything it waits for is in the recorder's window too.
   */
  async function serverCounts(kind: 'success' | 'fail', n: number): Promise<void> {
    const from = (await simpleCounts())[kind];
    const now = await waitForValue(simpleCounts, (c) => c[kind] >= from + n);
    assert.ok(now[kind] >= from + n, `the server counted ${now[kind] - from} of ${n} ${kind}`);
  }

  void it('closed loop: every request answered with outputs, ids matched', async () => {
    const engine = new WsLoadEngine(engineInit(port), 0);
    const recorder = new WindowRecorder();
    await engine.start({ kind: 'concurrency', concurrency: 8 }, recorder);
    recorder.reset();
    await serverCounts('success', 100);
    await engine.stop();
    const w = recorder.take(engine.inFlight(), engine.queued());
    await engine.close();
    assert.equal(w.errors, 0, w.errorSample ?? '');
    assert.ok(w.completed >= 100, `completed ${w.completed}`);
    assert.equal(decodeHistogram(w.histogram).totalCount, w.completed);
    assert.equal(w.inFlight, 0);
  });

  void it("records the server's error frames (a wrong shape) as failures with its code", async () => {
    const bad = wsRequestPayload('simple', '', [
      SIMPLE[0] as InputSet[number],
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 3], elements: [1, 2, 3] },
    ]);
    const engine = new WsLoadEngine(engineInit(port, { requests: [bad] }), 0);
    const recorder = new WindowRecorder();
    await engine.start({ kind: 'concurrency', concurrency: 2 }, recorder);
    recorder.reset();
    await serverCounts('fail', 20);
    await engine.stop();
    const w = recorder.take(0, 0);
    await engine.close();
    assert.equal(w.completed, 0);
    assert.ok(w.errors >= 20, `errors ${w.errors}`);
    assert.match(w.errorSample ?? '', /^BAD_SHAPE: /);
  });

  void it('open loop: a Poisson stream over WebSocket, all answered', async () => {
    const engine = new WsLoadEngine(engineInit(port), 0);
    const recorder = new WindowRecorder();
    await engine.start(
      { kind: 'request-rate', rate: 300, distribution: 'poisson', seed: 7, phase: 0 },
      recorder,
    );
    recorder.reset();
    await serverCounts('success', 60);
    await engine.stop();
    const w = recorder.take(engine.inFlight(), engine.queued());
    await engine.close();
    assert.equal(w.errors, 0, w.errorSample ?? '');
    assert.ok(w.completed >= 60, `completed ${w.completed}`);
    assert.equal(w.inFlight, 0);
  });
});
