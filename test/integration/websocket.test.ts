// The streaming WebSocket endpoint end to end, on each front end (uWS where its binary loads, and
// node:http + ws everywhere): every datatype over both encodings through the typed client, 1,000
// requests multiplexed on one socket, request ids (every format, unusable ones, duplicates),
// subprotocol choice, the outputs filter's order, priority and timeout without a batcher, the
// in-flight cap, cancellation on close, hostile frames, and a slow consumer's bounded memory.
//
// The in-flight cap and cancellation tests need the slow model's instance busy while they play
// out. How long it runs differs several-fold between machines, so the file times it once and sizes
// those requests from that, and waits on the pending gauge instead of assuming what has run.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Builder, ByteBuffer } from 'flatbuffers';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import {
  Cancel,
  ClientFrame,
  ServerFrame,
} from '../../schemas/generated/infernode-ws_generated.js';
import { flatbuffersClientCodec } from '../../src/client/client-codecs.js';
import type { Datatype } from '../../src/tensor/datatypes.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import {
  InferenceClient,
  InferenceClientError,
  output,
  tensor,
  type Tensor,
} from '../../src/client/inference-client.js';
import {
  CLOSE_CODES,
  FLATBUFFERS_PROTOCOL,
  MSGPACK_PROTOCOL,
  WS_PATH,
} from '../../src/websocket/ws-protocol.js';
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
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

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

    void describe('request ids', () => {
      /** What each reply says, with the id's bytes as sent back (hex). */
      interface Reply {
        readonly idHex: string;
        readonly code: string | undefined;
        readonly message: string | undefined;
        readonly outputs: { name: string; data: Uint8Array }[] | undefined;
      }

      /** A request frame whose `id` value is exactly `idHex`: no library writes every format. */
      function withId(idHex: string | undefined, doc: Record<string, unknown>): Buffer {
        const rest = packr.pack(doc);
        assert.equal(rest[0], 0x80 | Object.keys(doc).length); // a fixmap header
        if (idHex === undefined) return rest;
        return Buffer.concat([
          Buffer.from([rest[0]! + 1, 0xa2, 0x69, 0x64]),
          Buffer.from(idHex, 'hex'),
          rest.subarray(1),
        ]);
      }
      const identity = (idHex: string | undefined): Buffer =>
        withId(idHex, {
          model: 'identity_int32',
          inputs: [
            {
              name: 'INPUT0',
              datatype: 'INT32',
              shape: [1, 2],
              data: Buffer.from(Int32Array.of(7, 8).buffer),
            },
          ],
        });
      const slow = (idHex: string, parameters?: Record<string, unknown>): Buffer =>
        withId(idHex, {
          model: 'slow_fp32',
          inputs: [
            { name: 'INPUT0', datatype: 'FP32', shape: [1, 1024], data: Buffer.alloc(4096) },
          ],
          ...(parameters !== undefined ? { parameters } : {}),
        });

      async function reply(raw: RawSocket): Promise<Reply> {
        const frame = await raw.nextFrame();
        const doc = unpackr.unpack(frame) as any;
        // The id is the first entry; the entry after it is "model_name" or "error".
        const next = doc.error === undefined ? 'aa6d6f64656c5f6e616d65' : 'a56572726f72';
        const hex = frame.toString('hex');
        assert.equal(hex.slice(2, 8), 'a26964', hex.slice(0, 40));
        return {
          idHex: hex.slice(8, hex.indexOf(next, 8)),
          code: doc.error?.code,
          message: doc.error?.message,
          outputs: doc.outputs,
        };
      }

      const str = (text: string, header: string): string =>
        header + Buffer.from(text).toString('hex');

      void it('takes ids across the whole range in every msgpack format and echoes them byte for byte', async () => {
        const ids = [
          '00',
          '7f',
          'ccff',
          'cdffff',
          'ceffffffff', // uint 32: 2^32-1
          'cf0000000100000000', // uint 64: 2^32
          'cf001fffffffffffff', // uint 64: 2^53-1
          'd30000000000000009', // int 64: 9
          'cb4270000000000000', // float 64: 2^40, as msgpackr writes integers from 2^32 up
          'cb4014000000000000', // float 64: 5.0
          str('é'.repeat(128), 'da0100'), // 256 bytes
          str('id-1', 'd904'), // a str 8 where a fixstr would do
        ];
        const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
        try {
          for (const id of ids) raw.send(identity(id));
          const replies: Reply[] = [];
          while (replies.length < ids.length) replies.push(await reply(raw));
          assert.deepEqual(replies.map((r) => r.idHex).sort(), [...ids].sort());
          for (const r of replies) {
            assert.equal(r.code, undefined, `${r.idHex}: ${r.message}`);
            assert.deepEqual(
              [...new Int32Array(new Uint8Array(r.outputs?.[0]?.data ?? []).buffer)],
              [7, 8],
            );
          }
        } finally {
          raw.close();
        }
      });

      void it('answers unusable ids with BAD_ID under a nil id, and the socket stays open', async () => {
        const unusable: readonly [string | undefined, RegExp][] = [
          ['a0', /got an empty string/],
          [str('a'.repeat(257), 'da0101'), /got a string of 257 bytes/],
          ['ff', /got the negative fixint -1, below 0/],
          ['cb3ff8000000000000', /got the float 64 1.5, which is not an integer/],
          ['c3', /got the boolean true/],
          ['c0', /got nil/],
          ['cf0020000000000000', /got the uint 64 9007199254740992, above 2\^53-1/],
          [undefined, /got no 'id'/],
        ];
        const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
        try {
          for (const [id, message] of unusable) {
            raw.send(identity(id));
            const r = await reply(raw);
            assert.equal(r.idHex, 'c0', String(id));
            assert.equal(r.code, 'BAD_ID', r.message);
            assert.match(r.message ?? '', message);
          }
          raw.send(identity('01'));
          const ok = await reply(raw);
          assert.equal(ok.idHex, '01');
          assert.equal(ok.code, undefined, ok.message);
        } finally {
          raw.close();
        }
      });

      void it('refuses a frame under an id in flight with DUPLICATE_ID; the first request still completes', async () => {
        const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
        try {
          raw.send(slow('07')); // in flight for ~100 ms
          raw.send(identity('cf0000000000000007')); // the same id: 7 as a uint 64
          raw.send(withId('07', { model: 'identity_int32', inputs: 'not an array' }));
          raw.send(identity(str('7', 'a1'))); // the string "7" is another id
          const replies: Reply[] = [];
          for (let i = 0; i < 4; i++) replies.push(await reply(raw));
          const byId = (idHex: string, code: string | undefined) =>
            replies.filter((r) => r.idHex === idHex && r.code === code);
          assert.equal(byId('cf0000000000000007', 'DUPLICATE_ID').length, 1);
          const [malformed] = byId('07', 'DUPLICATE_ID');
          assert.match(malformed?.message ?? '', /already in flight .* continues unaffected/);
          assert.match(malformed?.message ?? '', /also unusable: frame 'inputs' must be an array/);
          assert.equal(byId('a137', undefined).length, 1, 'the string id "7" ran');
          // The request in flight under 7 was not touched by either refusal.
          assert.equal(byId('07', undefined).length, 1, JSON.stringify(replies));
          // Its response has gone out, so 7 is free again.
          raw.send(identity('07'));
          const again = await reply(raw);
          assert.deepEqual([again.idHex, again.code], ['07', undefined]);
        } finally {
          raw.close();
        }
      });

      void it('FlatBuffers: BAD_ID without an id for an empty one, DUPLICATE_ID under an id in flight', async () => {
        const raw = await RawSocket.open(wsUrl, FLATBUFFERS_PROTOCOL);
        try {
          const fbReply = async () => {
            const frame = ServerFrame.getRootAsServerFrame(new ByteBuffer(await raw.nextFrame()));
            return { id: frame.id(), code: frame.error()?.code() ?? undefined };
          };
          raw.send(
            flatbuffersClientCodec.encodeRequest(
              7,
              'slow_fp32',
              [tensor('INPUT0', 'FP32', [1, 1024], new Float32Array(1024))],
              {},
            ),
          );
          raw.send(
            flatbuffersClientCodec.encodeRequest(
              7,
              'identity_int32',
              [tensor('INPUT0', 'INT32', [1, 2], Int32Array.of(7, 8))],
              {},
            ),
          );
          assert.deepEqual(await fbReply(), { id: '7', code: 'DUPLICATE_ID' });
          const b = new Builder(64);
          const cancel = Cancel.createCancel(b, b.createString(''));
          ClientFrame.startClientFrame(b);
          ClientFrame.addCancel(b, cancel);
          b.finish(ClientFrame.endClientFrame(b));
          raw.send(b.asUint8Array());
          assert.deepEqual(await fbReply(), { id: null, code: 'BAD_ID' });
          assert.deepEqual(await fbReply(), { id: '7', code: undefined });
        } finally {
          raw.close();
        }
      });
    });

    void it('picks the first subprotocol the client offers that it knows', async () => {
      const offers: readonly [readonly string[], string][] = [
        [[FLATBUFFERS_PROTOCOL, MSGPACK_PROTOCOL], FLATBUFFERS_PROTOCOL],
        [[MSGPACK_PROTOCOL, FLATBUFFERS_PROTOCOL], MSGPACK_PROTOCOL],
        [['x.unknown', FLATBUFFERS_PROTOCOL, MSGPACK_PROTOCOL], FLATBUFFERS_PROTOCOL],
        [[], ''],
      ];
      for (const [offered, chosen] of offers) {
        const raw = await RawSocket.open(wsUrl, offered);
        assert.equal(raw.protocol, chosen, offered.join(', '));
        raw.close();
      }
    });

    void it('returns filtered outputs in the order the filter lists them, with no parameters', async () => {
      const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
      try {
        const input = (name: string) => ({
          name,
          datatype: 'INT32',
          shape: [1, 16],
          data: Buffer.from(new Int32Array(16).fill(3).buffer),
        });
        raw.send(
          packr.pack({
            id: 1,
            model: 'simple',
            inputs: [input('INPUT0'), input('INPUT1')],
            outputs: ['OUTPUT1', { name: 'OUTPUT0' }],
          }),
        );
        const doc = (await raw.nextMessage()) as any;
        assert.deepEqual(Object.keys(doc), ['id', 'model_name', 'model_version', 'outputs']);
        assert.deepEqual(
          doc.outputs.map((o: any) => o.name),
          ['OUTPUT1', 'OUTPUT0'],
        );
        assert.deepEqual(Object.keys(doc.outputs[0]), ['name', 'datatype', 'shape', 'data']);
      } finally {
        raw.close();
      }
    });

    void it('checks priority and timeout on a model without dynamic batching, and otherwise ignores them', async () => {
      const raw = await RawSocket.open(wsUrl, MSGPACK_PROTOCOL);
      try {
        const send = (id: number, parameters?: Record<string, unknown>) =>
          raw.send(
            packr.pack({
              id,
              model: 'slow_fp32',
              inputs: [
                { name: 'INPUT0', datatype: 'FP32', shape: [1, 1024], data: Buffer.alloc(4096) },
              ],
              ...(parameters !== undefined ? { parameters } : {}),
            }),
          );
        send(1);
        // Queued behind request 1 for ~100 ms, far past a 1 µs timeout: it still runs.
        send(2, { timeout: 1, priority: 1 });
        send(3, { timeout: -1 });
        const replies: any[] = [];
        for (let i = 0; i < 3; i++) replies.push((await raw.nextMessage()) as any);
        const of = (id: number) => replies.find((r) => r.id === id);
        assert.ok(of(1)?.outputs !== undefined);
        assert.ok(of(2)?.outputs !== undefined, JSON.stringify(of(2)?.error));
        assert.equal(of(3)?.error?.code, 'BAD_PARAMETER');
      } finally {
        raw.close();
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
