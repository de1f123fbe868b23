// The streaming WebSocket endpoint end to end, on each front end (uWS where its binary loads, and
// node:http + ws everywhere): every datatype over both encodings through the typed client, 1,000
// requests multiplexed on one socket, the in-flight cap, cancellation on close, hostile frames, and
// a slow consumer's bounded memory.
//
// The in-flight cap and cancellation tests need the slow model's instance busy while they play
// out. How long it runs differs several-fold between machines, so the file times it once and sizes
// those requests from that, and waits on the pending gauge instead of assuming what has run.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import WebSocket from 'ws';
import type { Datatype } from '../../src/tensor/datatypes.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import {
  InferenceClient,
  InferenceClientError,
  output,
  tensor,
  type Tensor,
} from '../../src/client/inference-client.js';
import { CLOSE_CODES, MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import {
  copySlowModel,
  measureSlowModel,
  slowInput,
  type SlowModelTiming,
} from '../helpers/slow-model-timing.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { pendingRequests, waitFor } from '../helpers/wait-for.js';
import { RawSocket } from './websocket-raw-socket.js';

const packr = new Packr({ useRecords: false, variableMapSize: true });

const FRONT_ENDS = [
  { name: 'uws', choice: 'uws', skip: loadUws().ok ? false : 'uWS binary not available here' },
  { name: 'node-http + ws', choice: 'node', skip: false },
] as const;

/** One 4-element input per datatype, through the identity fixture of that type. */
const ROUND_TRIPS: readonly { model: string; input: Tensor }[] = [
  ['BOOL', Uint8Array.of(1, 0, 1, 1)],
  ['UINT8', Uint8Array.of(0, 1, 128, 255)],
  ['UINT16', Uint16Array.of(0, 1, 40000, 65535)],
  ['UINT32', Uint32Array.of(0, 1, 3e9, 4294967295)],
  ['UINT64', BigUint64Array.of(0n, 1n, 2n ** 63n, 2n ** 64n - 1n)],
  ['INT8', Int8Array.of(-128, -1, 0, 127)],
  ['INT16', Int16Array.of(-32768, -1, 0, 32767)],
  ['INT32', Int32Array.of(-(2 ** 31), -1, 0, 2 ** 31 - 1)],
  ['INT64', BigInt64Array.of(-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n)],
  ['FP16', Uint16Array.of(0x3c00, 0xc000, 0x7c00, 0x0001)],
  ['FP32', Float32Array.of(1.5, -0, Number.POSITIVE_INFINITY, 3.4e38)],
  ['FP64', Float64Array.of(Math.PI, -0, Number.NEGATIVE_INFINITY, 5e-324)],
  ['BYTES', ['', 'héllo', 'a longer element with spaces', '\u{1f600}']],
].map(([datatype, data]) => ({
  model: `identity_${String(datatype).toLowerCase()}`,
  input: { name: 'INPUT0', datatype: datatype as Datatype, shape: [1, 4], data } as Tensor,
}));

function bytesOf(t: Tensor): Buffer[] | Buffer {
  if (Array.isArray(t.data)) return t.data.map((e) => Buffer.from(e));
  const v = t.data as ArrayBufferView;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

async function repository(): Promise<string> {
  const repo = await tempRepository();
  for (const { model } of ROUND_TRIPS) await copyModel(repo, model);
  await copyModel(repo, 'simple');
  // One instance, requests run one at a time, room for requests as long as the timing asks for.
  await copySlowModel(repo, 'slow_fp32');
  return repo;
}

/** A msgpack infer frame of `rows` rows for slow_fp32. */
function slowFrame(id: number, rows: number): Buffer {
  return packr.pack({
    id,
    model: 'slow_fp32',
    inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [rows, 1024], data: slowInput(rows, id) }],
  });
}

/** slow_fp32's timing on this machine: taken once, on the first server this file starts. */
let timing: SlowModelTiming | undefined;

for (const fe of FRONT_ENDS) {
  void describe(`WebSocket protocol on ${fe.name}`, { skip: fe.skip }, () => {
    let t: TestServer;
    let wsUrl: string;
    before(async () => {
      t = await startTestServer({
        modelRepositories: [await repository()],
        httpFrontEnd: fe.choice,
        wsMaxFrameSize: 4 * 1024 * 1024,
        wsMaxInflight: 1024,
        wsMaxQueuedBytes: 8 * 1024 * 1024,
      });
      wsUrl = `${t.base.replace('http', 'ws')}${WS_PATH}`;
      timing ??= await measureSlowModel(t, 'slow_fp32');
    });
    after(async () => {
      await t.close();
    });

    for (const protocol of ['ws', 'ws-flatbuffers'] as const) {
      void it(`round-trips every datatype bit for bit over ${protocol}`, async () => {
        const client = new InferenceClient({ url: t.base, protocol, timeoutMs: 30_000 });
        try {
          for (const { model, input } of ROUND_TRIPS) {
            const result = await client.infer(model, [input]);
            const out = output(result, 'OUTPUT0');
            assert.equal(out.datatype, input.datatype, model);
            assert.deepEqual(out.shape, [1, 4], model);
            assert.deepEqual(bytesOf(out), bytesOf(input), model);
          }
        } finally {
          await client.close();
        }
      });
    }

    void it('answers 1,000 requests in flight on one socket, each with its own result', async () => {
      const client = new InferenceClient({ url: t.base, protocol: 'ws', timeoutMs: 60_000 });
      try {
        const ones = new Int32Array(16).fill(1);
        const results = await Promise.all(
          Array.from({ length: 1000 }, (_, k) =>
            client.infer('simple', [
              tensor(
                'INPUT0',
                'INT32',
                [1, 16],
                Int32Array.from({ length: 16 }, (_, i) => k * 16 + i),
              ),
              tensor('INPUT1', 'INT32', [1, 16], ones),
            ]),
          ),
        );
        results.forEach((r, k) => {
          const sum = output(r, 'OUTPUT0').data as Int32Array;
          const diff = output(r, 'OUTPUT1').data as Int32Array;
          assert.deepEqual(
            Array.from(sum),
            Array.from({ length: 16 }, (_, i) => k * 16 + i + 1),
          );
          assert.deepEqual(
            Array.from(diff),
            Array.from({ length: 16 }, (_, i) => k * 16 + i - 1),
          );
        });
      } finally {
        await client.close();
      }
    });

    void it('reports model errors as error frames with catalog codes', async () => {
      const client = new InferenceClient({ url: t.base, protocol: 'ws' });
      try {
        await assert.rejects(
          client.infer('simple', [tensor('INPUT0', 'INT32', [1, 15], new Int32Array(15))]),
          (e: unknown) => e instanceof InferenceClientError && e.code === 'MISSING_INPUT',
        );
        await assert.rejects(
          client.infer('no_such_model', [tensor('INPUT0', 'INT32', [1, 1], new Int32Array(1))]),
          (e: unknown) => e instanceof InferenceClientError && e.code === 'MODEL_NOT_FOUND',
        );
      } finally {
        await client.close();
      }
    });

    void it('refuses an unknown subprotocol at the upgrade', async () => {
      const ws = new WebSocket(wsUrl, ['something.else']);
      const status = await new Promise<number>((resolve) => {
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', () => resolve(-1));
      });
      assert.equal(status, 400);
    });

    void describe('hostile frames', () => {
      let bystander: InferenceClient;
      before(() => {
        bystander = new InferenceClient({ url: t.base, protocol: 'ws' });
      });
      after(async () => {
        await bystander.close();
      });

      /** The server is live and another socket still gets answers. */
      async function stillServing(): Promise<void> {
        const live = await fetch(`${t.base}/v2/health/live`);
        assert.equal(live.status, 200);
        const r = await bystander.infer('identity_int32', [
          tensor('INPUT0', 'INT32', [1, 2], Int32Array.of(7, 8)),
        ]);
        assert.deepEqual(Array.from(output(r, 'OUTPUT0').data as Int32Array), [7, 8]);
        assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      }

      const closes: readonly [string, () => Uint8Array | string, number][] = [
        [
          'an array32 header claiming 2^32-1 elements in 10 bytes',
          () => Buffer.from('ddffffffff0000000000', 'hex'),
          CLOSE_CODES.INVALID_PAYLOAD,
        ],
        [
          '10,000-deep nesting',
          () =>
            Buffer.concat([
              Buffer.from([0x81, 0xa1, 0x78]),
              Buffer.alloc(10_000, 0x91),
              Buffer.from([0xc0]),
            ]),
          CLOSE_CODES.INVALID_PAYLOAD,
        ],
        ['a frame that is not a map', () => packr.pack([1, 2, 3]), CLOSE_CODES.INVALID_PAYLOAD],
        [
          'a truncated frame without an id',
          () => packr.pack({ model: 'simple', inputs: [] }).subarray(0, 5),
          CLOSE_CODES.INVALID_PAYLOAD,
        ],
        ['a text frame', () => 'hello', CLOSE_CODES.UNSUPPORTED_DATA],
        [
          'a frame over the size limit',
          () => Buffer.alloc(4 * 1024 * 1024 + 1),
          CLOSE_CODES.MESSAGE_TOO_BIG,
        ],
      ];
      for (const [what, frame, code] of closes) {
        void it(`closes the socket on ${what} (${code})`, async () => {
          const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
          raw.send(frame());
          const closed = await raw.closed;
          if (code === CLOSE_CODES.MESSAGE_TOO_BIG && fe.choice === 'uws') {
            // uWS 20.30 drops the TCP connection without a close frame (the client sees 1006)
            // as soon as the frame header announces too many bytes; ws sends 1009.
            assert.ok([1006, 1009].includes(closed.code), String(closed.code));
          } else {
            assert.equal(closed.code, code, closed.reason);
          }
          await stillServing();
        });
      }

      const answered: readonly [string, () => Uint8Array, string][] = [
        [
          '__proto__ and constructor keys',
          () =>
            packr.pack(
              // JSON.parse makes `__proto__` an own key, so the packed map really carries it.
              JSON.parse(
                '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},' +
                  '"id":1,"model":"identity_int32","inputs":[],' +
                  '"parameters":{"__proto__":"x","constructor":"y"}}',
              ),
            ),
          'MISSING_INPUT',
        ],
        [
          'a truncated payload',
          () => {
            const whole = packr.pack({
              id: 2,
              model: 'identity_int32',
              inputs: [
                { name: 'INPUT0', datatype: 'INT32', shape: [1, 4], data: Buffer.alloc(16) },
              ],
            });
            return whole.subarray(0, whole.length - 3);
          },
          'BAD_REQUEST',
        ],
        [
          'a shape that does not match the byte size',
          () =>
            packr.pack({
              id: 3,
              model: 'identity_int32',
              inputs: [
                { name: 'INPUT0', datatype: 'INT32', shape: [1, 5], data: Buffer.alloc(16) },
              ],
            }),
          'BYTE_SIZE_MISMATCH',
        ],
        [
          'an ext type',
          () =>
            Buffer.concat([
              Buffer.from('82a26964', 'hex'),
              Buffer.from([4]),
              Buffer.from('a178d4010a', 'hex'),
            ]),
          'BAD_REQUEST',
        ],
      ];
      for (const [what, frame, code] of answered) {
        void it(`answers ${what} with an error frame`, async () => {
          const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
          raw.send(frame());
          const reply = (await raw.nextMessage()) as { id: unknown; error?: { code: string } };
          assert.ok(reply.error !== undefined, JSON.stringify(reply));
          assert.equal(reply.error.code, code, JSON.stringify(reply));
          assert.notEqual(reply.id, undefined);
          raw.close();
          await stillServing();
        });
      }
    });

    void it('refuses requests over the in-flight cap with an error frame naming the cap', async (c) => {
      const rows = timing!.rowsFor(300);
      c.diagnostic(`${timing!.summary}; the first two requests: ${rows} rows`);
      const limited = await startTestServer({
        modelRepositories: [await repository()],
        httpFrontEnd: fe.choice,
        wsMaxInflight: 2,
      });
      const raw = await RawSocket.open(
        `${limited.base.replace('http', 'ws')}${WS_PATH}`,
        MSGPACK_PROTOCOL,
      );
      try {
        // Two long requests fill both slots: once the gauge shows the second queued, the first is
        // running and neither has been answered, so the next four find the socket at its cap.
        raw.send(slowFrame(0, rows));
        raw.send(slowFrame(1, rows));
        const queued = await waitFor(
          () => pendingRequests(limited.metricsBase, 'slow_fp32'),
          (q) => q === 1,
        );
        assert.equal(queued, 1, 'both requests in flight, the first running');
        for (let id = 2; id < 6; id++) raw.send(slowFrame(id, 1));
        const replies = [];
        for (let i = 0; i < 6; i++) replies.push((await raw.nextMessage()) as any);
        const codes = JSON.stringify(replies.map((r) => [r.id, r.error?.code ?? 'ok']));
        // The four refusals come first, while both slots are still taken; then the two answers.
        assert.deepEqual(
          replies.slice(0, 4).map((r) => [r.id, r.error?.code]),
          [
            [2, 'QUEUE_FULL'],
            [3, 'QUEUE_FULL'],
            [4, 'QUEUE_FULL'],
            [5, 'QUEUE_FULL'],
          ],
          codes,
        );
        for (const r of replies.slice(0, 4)) assert.match(r.error.message, /--ws-max-inflight 2/);
        assert.deepEqual(
          replies.slice(4).map((r) => [r.id, r.outputs?.[0]?.shape]),
          [
            [0, [rows, 1024]],
            [1, [rows, 1024]],
          ],
          codes,
        );
      } finally {
        raw.close();
        await limited.close();
      }
    });

    void it('closing a socket cancels its queued requests', async (c) => {
      const rows = timing!.rowsFor(150);
      c.diagnostic(`20 requests of ${rows} rows`);
      const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
      const stats = async () => {
        const r = await fetch(`${t.base}/v2/models/slow_fp32/stats`);
        const doc = (await r.json()) as any;
        return doc.model_stats[0];
      };
      const before = await stats();
      for (let id = 0; id < 20; id++) raw.send(slowFrame(id, rows));
      // The first has run: the second runs now and the other 18 are queued, each for longer than
      // the close takes to reach the server.
      await raw.nextMessage();
      raw.close();
      await raw.closed;
      // Wait until every request has left the scheduler: success + fail covers all 20.
      const left = (s: any) =>
        s.inference_stats.success.count +
        s.inference_stats.fail.count -
        before.inference_stats.success.count -
        before.inference_stats.fail.count;
      const now = await waitFor(stats, (s) => left(s) === 20);
      assert.equal(left(now), 20, 'every request answered or cancelled');
      const executed = now.execution_count - before.execution_count;
      const cancelled = now.inference_stats.fail.count - before.inference_stats.fail.count;
      // The first, the one running at the close, and at most one more if the close was slow to
      // arrive: the queued rest never reached the worker.
      assert.ok(executed <= 3, `${executed} of 20 ran after the socket closed after the first`);
      assert.ok(cancelled >= 17, `expected the queued requests to be cancelled, got ${cancelled}`);
    });

    void it('holds bounded memory for a consumer that stops reading, then closes it with 1008', async () => {
      const baseline = t.server.websocket?.counters.snapshot().openSockets ?? 0;
      const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
      raw.pauseReading();
      const input = Buffer.alloc(512 * 1024); // 128 Ki FP32 elements: each response is 512 KiB
      for (let id = 0; id < 256; id++) {
        raw.send(
          packr.pack({
            id,
            model: 'identity_fp32',
            inputs: [
              { name: 'INPUT0', datatype: 'FP32', shape: [1, input.length / 4], data: input },
            ],
          }),
        );
      }
      // 256 x 512 KiB = 128 MiB of responses against an 8 MiB limit: the server must close this
      // socket (its session ends) rather than hold them.
      const counters = t.server.websocket?.counters;
      assert.ok(counters !== undefined);
      while (counters.snapshot().openSockets > baseline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      raw.resumeReading();
      const closed = await raw.closed;
      assert.equal(closed.code, CLOSE_CODES.POLICY_VIOLATION, closed.reason);
      const peak = counters.snapshot().peakPendingBytes;
      const limit = 8 * 1024 * 1024;
      // At most the limit plus the one response that crossed it plus the socket's high-water mark.
      assert.ok(peak <= limit + 2 * 1024 * 1024, `peak pending bytes ${peak}`);
      const live = await fetch(`${t.base}/v2/health/live`);
      assert.equal(live.status, 200);
    });
  });
}
