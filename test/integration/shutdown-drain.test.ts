// The drain a balancer can follow, on the real `infernode` command and each HTTP front end: on
// SIGTERM readiness fails at once (HTTP 503, gRPC NOT_SERVING) while the listener keeps serving
// new connections for --drain-delay-secs; a request on a keep-alive connection opened before the
// signal is served, with `Connection: close` (issue 11, defect 4); a WebSocket gets its answers and
// then a close frame 1001 (defect 7); an open gRPC stream gets its answers and then ends with OK.
//
// The drain is kept busy by slow_fp32 requests sized from its measured speed, and each step waits
// on the server's log or gauges rather than on a fixed sleep.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import { SLOW_WIDTH } from '../../scripts/onnx/fixture-models.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import { connectionRefused, RawConnection, rawRequest } from '../conformance/raw-http.js';
import { grpcClient } from '../helpers/grpc-client.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  slowInput,
  type SlowModelTiming,
} from '../helpers/slow-model-timing.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer } from '../helpers/test-server.js';
import { allQueued, logged, waitFor } from '../helpers/wait-for.js';
import { RawSocket } from './websocket-raw-socket.js';

const FRONT_ENDS = [
  { choice: 'uws', skip: loadUws().ok ? false : 'uWS binary not available on this Node' },
  { choice: 'node', skip: false },
] as const;

/**
 * How long each slow request keeps the instance busy, at least: two of them hold the drain open
 * for the few requests a test makes after the signal, with a wide margin for a loaded machine.
 */
const REQUEST_MS = 500;

const packr = new Packr({ useRecords: false, variableMapSize: true });
const ints = (f: (i: number) => number): Buffer =>
  Buffer.from(Int32Array.from({ length: 16 }, (_, i) => f(i)).buffer);

/** A JSON infer request for `simple` (OUTPUT0 = INPUT0 + INPUT1 = i + 1). */
const SIMPLE_BODY = JSON.stringify({
  inputs: [
    { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: [...Array(16).keys()] },
    { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
  ],
});
const SIMPLE_SUM = Array.from({ length: 16 }, (_, i) => i + 1);

function simpleInfer(): Buffer {
  return rawRequest(
    'POST',
    '/v2/models/simple/infer',
    [
      ['Content-Type', 'application/json'],
      ['Content-Length', String(Buffer.byteLength(SIMPLE_BODY))],
    ],
    SIMPLE_BODY,
  );
}

function sumOf(body: Buffer): number[] {
  const doc = JSON.parse(body.toString()) as { outputs: { name: string; data: number[] }[] };
  return doc.outputs.find((o) => o.name === 'OUTPUT0')?.data ?? [];
}

function portOf(s: SpawnedServer): number {
  return Number(new URL(s.base).port);
}

/** One request on a connection of its own, for "a client that connects now". */
async function onNewConnection(port: number, request: Buffer) {
  const conn = await RawConnection.open(port);
  try {
    await conn.send(request);
    return await conn.response();
  } finally {
    conn.destroy();
  }
}

void describe('the drain on SIGTERM', () => {
  let repo: string;
  let timing: SlowModelTiming;
  let rows: number;
  const servers: SpawnedServer[] = [];
  const serve = async (args: string[]): Promise<SpawnedServer> => {
    const s = await spawnServer([`--model-repository=${repo}`, '--exit-timeout-secs=30', ...args]);
    servers.push(s);
    return s;
  };
  /** Two slow requests on the server, the second queued behind the first: a drain of >= 2 s. */
  const keepBusy = async (s: SpawnedServer) => {
    const busy = [0, 1].map((k) => inferSlow(s.base, 'slow_fp32', rows, { seed: k }));
    await allQueued(s.metricsBase, 'slow_fp32', 2);
    return busy;
  };
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await copySlowModel(repo, 'slow_fp32');
    const probe = await startTestServer({ modelRepositories: [repo] });
    try {
      timing = await measureSlowModel(probe, 'slow_fp32');
    } finally {
      await probe.close();
    }
    rows = timing.rowsFor(REQUEST_MS);
  });
  after(async () => {
    for (const s of servers) {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    }
    await rm(repo, { recursive: true, force: true });
  });

  for (const fe of FRONT_ENDS) {
    void describe(`--http-front-end=${fe.choice}`, { skip: fe.skip }, () => {
      void it('fails readiness at once and serves new connections until --drain-delay-secs ends', async () => {
        const delaySecs = 3;
        const s = await serve([`--http-front-end=${fe.choice}`, `--drain-delay-secs=${delaySecs}`]);
        const port = portOf(s);
        const grpc = grpcClient(s.grpcTarget);
        try {
          assert.equal((await grpc.check()).status, 'SERVING');
          s.child.kill('SIGTERM');
          await logged(s.lines, 'drain started');
          const ready = await onNewConnection(port, rawRequest('GET', '/v2/health/ready'));
          assert.equal(ready.status, 503, 'readiness fails as soon as the drain starts');
          assert.equal((await grpc.check()).status, 'NOT_SERVING');
          const infer = await onNewConnection(port, simpleInfer());
          assert.equal(infer.status, 200, infer.body.toString());
          assert.deepEqual(sumOf(infer.body), SIMPLE_SUM);
          assert.equal(infer.headers.get('connection'), 'close');
          assert.ok(
            !s.lines.some((l) => l.includes('drain delay over')),
            `the requests above were made inside the ${delaySecs} s delay (raise it on a machine this slow)`,
          );
        } finally {
          grpc.close();
        }
        await logged(s.lines, 'drain delay over');
        assert.equal(await connectionRefused(port), true, 'the listener closes after the delay');
        assert.equal(await s.exited, 0);
      });

      void it('serves a request on a keep-alive connection opened before SIGTERM, then closes it', async () => {
        const s = await serve([`--http-front-end=${fe.choice}`]);
        const port = portOf(s);
        const conn = await RawConnection.open(port);
        await conn.send(rawRequest('GET', '/v2/health/ready'));
        const before = await conn.response();
        assert.equal(before.status, 200);
        assert.notEqual(before.headers.get('connection'), 'close');
        const busy = await keepBusy(s);
        s.child.kill('SIGTERM');
        await logged(s.lines, 'drain started');
        // The line is written just before the listeners close: on a loaded machine a connection
        // made the moment it arrives can still be accepted. They close within moments, not at the
        // end of the drain (the request below is still answered on the connection opened before).
        const refused = await waitFor(
          () => connectionRefused(port),
          (r) => r,
          2000,
        );
        assert.equal(refused, true, 'no new connections (no drain delay)');
        await conn.send(simpleInfer());
        const during = await conn.response();
        assert.equal(during.status, 200, during.body.toString());
        assert.deepEqual(sumOf(during.body), SIMPLE_SUM);
        assert.equal(during.headers.get('connection'), 'close');
        assert.ok(!s.lines.some((l) => l.includes('drain finished')), 'served during the drain');
        await conn.closed();
        for (const r of await Promise.all(busy)) assert.equal(r.status, 200);
        assert.equal(await s.exited, 0);
      });

      void it('answers a WebSocket its requests in flight, then closes it with 1001', async () => {
        const s = await serve([`--http-front-end=${fe.choice}`]);
        const ws = await RawSocket.open(`ws://127.0.0.1:${portOf(s)}${WS_PATH}`, MSGPACK_PROTOCOL);
        for (const id of [1, 2]) {
          ws.send(
            packr.pack({
              id,
              model: 'slow_fp32',
              inputs: [
                {
                  name: 'INPUT0',
                  datatype: 'FP32',
                  shape: [rows, SLOW_WIDTH],
                  data: slowInput(rows, id),
                },
              ],
            }),
          );
        }
        await allQueued(s.metricsBase, 'slow_fp32', 2);
        s.child.kill('SIGTERM');
        await logged(s.lines, 'drain started');
        ws.send(
          packr.pack({
            id: 3,
            model: 'simple',
            inputs: [
              { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: ints((i) => i) },
              { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: ints(() => 1) },
            ],
          }),
        );
        const replies = new Map<number, any>();
        for (let k = 0; k < 3; k++) {
          const reply = (await ws.nextMessage()) as any;
          replies.set(reply.id, reply);
        }
        assert.equal(replies.get(3)?.error?.code, 'SHUTTING_DOWN', 'a new request is refused');
        for (const id of [1, 2]) {
          assert.deepEqual(replies.get(id)?.outputs?.[0]?.shape, [rows, SLOW_WIDTH], `id ${id}`);
        }
        assert.deepEqual(await ws.closed, { code: 1001, reason: 'server shutting down' });
        assert.equal(await s.exited, 0);
      });
    });
  }

  void it('answers a gRPC stream open at SIGTERM, then ends it with status OK', async () => {
    const s = await serve([]);
    const grpc = grpcClient(s.grpcTarget);
    try {
      const stream = grpc.stub.ModelStreamInfer();
      const answers: any[] = [];
      const ended = new Promise<{ code: number }>((resolve, reject) => {
        stream.on('data', (r: any) => answers.push(r));
        stream.on('status', resolve);
        stream.on('error', reject);
      });
      for (const id of ['a', 'b']) {
        stream.write({
          model_name: 'slow_fp32',
          id,
          inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [rows, SLOW_WIDTH] }],
          raw_input_contents: [slowInput(rows)],
        });
      }
      await allQueued(s.metricsBase, 'slow_fp32', 2);
      s.child.kill('SIGTERM');
      // The client never ends its side: the server ends the stream once it has answered.
      assert.equal((await ended).code, 0);
      assert.deepEqual(
        answers.map((r) => [r.infer_response.id, r.error_message]),
        [
          ['a', ''],
          ['b', ''],
        ],
      );
    } finally {
      grpc.close();
    }
    assert.equal(await s.exited, 0);
  });
});
