// ModelStreamInfer's two server paths, byte for byte: plain calls are served on their HTTP/2
// stream directly (src/grpc/stream-infer.ts), calls with a deadline go through grpc-js
// (src/grpc/model-stream.ts). From a bare HTTP/2 client, both must send the same headers, the
// same message bytes and the same trailers; read messages however the client's DATA frames cut
// them; refuse an oversized or undecodable message with grpc-js's status; and carry a sequence's
// requests (sequence_id / start / end parameters) in order.

import assert from 'node:assert/strict';
import { cp, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { inferenceMethods } from '../helpers/grpc-client.js';
import { copyModel, FIXTURE_REPOSITORY, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const STREAM_PATH = '/inference.GRPCInferenceService/ModelStreamInfer';
const method = inferenceMethods['ModelStreamInfer']!;

/** The two server paths, and the headers a client sends to take each. */
const PATHS = [
  { path: 'direct', headers: {} },
  // A deadline sends grpc-timeout, which takes the call through grpc-js.
  { path: 'grpc-js', headers: { 'grpc-timeout': '60S' } },
] as const;

const int32s = (values: readonly number[]): Buffer => Buffer.from(Int32Array.from(values).buffer);

function simpleRequest(id: string, k: number, width = 16): object {
  return {
    model_name: 'simple',
    id,
    inputs: ['INPUT0', 'INPUT1'].map((name) => ({ name, datatype: 'INT32', shape: [1, width] })),
    raw_input_contents: [
      int32s(Array.from({ length: width }, (_, i) => i * k)),
      int32s(Array.from({ length: width }, () => k)),
    ],
  };
}

const framed = (message: Buffer, flag = 0): Buffer => {
  const b = Buffer.alloc(5 + message.length);
  b[0] = flag;
  b.writeUInt32BE(message.length, 1);
  message.copy(b, 5);
  return b;
};

const frame = (request: object): Buffer => framed(method.requestSerialize(request));

interface RawStream {
  /** Writes bytes as one DATA frame (the client flushes each write before the next). */
  write(bytes: Buffer): Promise<void>;
  /** Ends the client's side and resolves with all the server sent. */
  finish(): Promise<RawAnswer>;
  /** Resolves once `n` messages have arrived. */
  messages(n: number): Promise<Buffer[]>;
}

interface RawAnswer {
  readonly headers: http2.IncomingHttpHeaders;
  readonly trailers: http2.IncomingHttpHeaders | undefined;
  readonly status: string;
  readonly message: string;
  /** Each message's bytes, prefix removed. */
  readonly messages: Buffer[];
}

/** A ModelStreamInfer call from a bare HTTP/2 client: exact bytes in, exact bytes out. */
function rawStream(target: string, headers: http2.OutgoingHttpHeaders): RawStream {
  const session = http2.connect(`http://${target}`);
  const stream = session.request({
    ':method': 'POST',
    ':path': STREAM_PATH,
    'content-type': 'application/grpc',
    te: 'trailers',
    ...headers,
  });
  let responseHeaders: http2.IncomingHttpHeaders = {};
  let trailers: http2.IncomingHttpHeaders | undefined;
  let received = Buffer.alloc(0);
  const messages: Buffer[] = [];
  const waiters: { n: number; resolve: (m: Buffer[]) => void }[] = [];
  stream.on('response', (h) => (responseHeaders = h));
  stream.on('trailers', (h) => (trailers = h));
  stream.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    while (received.length >= 5 && received.length >= 5 + received.readUInt32BE(1)) {
      messages.push(received.subarray(5, 5 + received.readUInt32BE(1)));
      received = received.subarray(5 + received.readUInt32BE(1));
    }
    for (const w of waiters.filter((x) => messages.length >= x.n)) w.resolve(messages.slice());
  });
  const closed = new Promise<void>((resolve) => stream.on('close', resolve));
  stream.on('error', () => undefined);
  return {
    write: (bytes) =>
      new Promise((resolve, reject) =>
        stream.write(bytes, (err) => (err ? reject(err) : resolve())),
      ),
    messages: (n) =>
      messages.length >= n
        ? Promise.resolve(messages.slice())
        : new Promise((resolve) => waiters.push({ n, resolve })),
    finish: async () => {
      if (!stream.writableEnded) stream.end();
      await closed;
      session.close();
      const last = trailers ?? responseHeaders;
      return {
        headers: responseHeaders,
        trailers,
        status: String(last['grpc-status']),
        message: decodeURIComponent(String(last['grpc-message'] ?? '')),
        messages,
      };
    },
  };
}

void describe('gRPC ModelStreamInfer: the direct path and the grpc-js path answer alike', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    await cp(
      path.join(FIXTURE_REPOSITORY, 'sequence_accumulator'),
      path.join(repo, 'sequence_accumulator'),
      { recursive: true },
    );
    t = await startTestServer({ modelRepositories: [repo], grpcMaxInputSize: 4096 });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('sends the same headers, message bytes and trailers on both paths', async () => {
    const answers: RawAnswer[] = [];
    for (const { headers } of PATHS) {
      const s = rawStream(t.grpcTarget, headers);
      // One at a time, so the order of the answers is the order of the requests.
      await s.write(frame(simpleRequest('ok', 3)));
      await s.messages(1);
      await s.write(frame({ model_name: 'nope', id: 'bad', model_version: '2' }));
      await s.messages(2);
      answers.push(await s.finish());
    }
    const [direct, viaGrpcJs] = answers as [RawAnswer, RawAnswer];
    for (const name of ['content-type', 'grpc-encoding', 'grpc-accept-encoding', ':status']) {
      assert.equal(direct.headers[name], viaGrpcJs.headers[name], name);
    }
    assert.deepEqual(
      [direct.status, direct.message],
      [viaGrpcJs.status, viaGrpcJs.message],
      'the trailers',
    );
    assert.deepEqual([direct.status, direct.message], ['0', 'OK']);
    assert.equal(direct.messages.length, 2);
    assert.deepEqual(direct.messages, viaGrpcJs.messages, 'the same message bytes');

    // Field by field, as proto-loader (protobufjs) reads them.
    const ok = method.responseDeserialize(direct.messages[0]!);
    assert.equal(ok.error_message, '');
    assert.equal(ok.infer_response.model_name, 'simple');
    assert.equal(ok.infer_response.id, 'ok');
    assert.deepEqual(
      ok.infer_response.outputs.map((o: any) => [o.name, o.datatype, o.shape]),
      [
        ['OUTPUT0', 'INT32', ['1', '16']],
        ['OUTPUT1', 'INT32', ['1', '16']],
      ],
    );
    const sum = new Int32Array(Uint8Array.from(ok.infer_response.raw_output_contents[0]).buffer);
    assert.deepEqual(
      [...sum],
      Array.from({ length: 16 }, (_, i) => i * 3 + 3),
    );
    const bad = method.responseDeserialize(direct.messages[1]!);
    assert.match(bad.error_message, /nope/);
    assert.deepEqual(
      [bad.infer_response.model_name, bad.infer_response.model_version, bad.infer_response.id],
      ['nope', '2', 'bad'],
    );
    assert.deepEqual(bad.infer_response.outputs, []);
  });

  for (const { path: route, headers } of PATHS) {
    void it(`reads messages however DATA frames cut them (${route} path)`, async () => {
      const s = rawStream(t.grpcTarget, headers);
      // Three messages in one DATA frame.
      await s.write(Buffer.concat([0, 1, 2].map((k) => frame(simpleRequest(`together-${k}`, k)))));
      // One message in single bytes, its prefix split too; then one message, and the first
      // bytes of the next in the same frame.
      const split = frame(simpleRequest('split', 5));
      for (let i = 0; i < split.length; i += 1) {
        await s.write(split.subarray(i, i + 1));
        if (i < 8) await sleep(1);
      }
      const a = frame(simpleRequest('a', 6));
      const b = frame(simpleRequest('b', 7));
      await s.write(Buffer.concat([a, b.subarray(0, 3)]));
      await sleep(5);
      await s.write(b.subarray(3, 40));
      await s.write(b.subarray(40));
      const answer = await s.finish();
      assert.deepEqual([answer.status, answer.message], ['0', 'OK']);
      const byId = new Map(
        answer.messages.map((m) => {
          const r = method.responseDeserialize(m);
          return [r.infer_response.id, r];
        }),
      );
      assert.deepEqual([...byId.keys()].sort(), [
        'a',
        'b',
        'split',
        'together-0',
        'together-1',
        'together-2',
      ]);
      for (const [id, k] of [
        ['together-2', 2],
        ['split', 5],
        ['b', 7],
      ] as const) {
        const r = byId.get(id);
        assert.equal(r.error_message, '', id);
        const out = new Int32Array(Uint8Array.from(r.infer_response.raw_output_contents[0]).buffer);
        assert.deepEqual(
          [...out],
          Array.from({ length: 16 }, (_, i) => i * k + k),
          id,
        );
      }
    });

    void it(`ends the call on an oversized or undecodable message, as grpc-js does (${route} path)`, async () => {
      const big = rawStream(t.grpcTarget, headers);
      await big.write(frame(simpleRequest('fine', 1)));
      await big.messages(1);
      await big.write(frame(simpleRequest('too-big', 1, 1024)));
      const refused = await big.finish();
      assert.equal(refused.status, String(status.RESOURCE_EXHAUSTED));
      assert.match(refused.message, /^Received message larger than max \(\d+ vs 4096\)$/);
      assert.equal(refused.messages.length, 1, 'the answer before the refusal was sent');

      const garbage = rawStream(t.grpcTarget, headers);
      await garbage.write(framed(Buffer.from([0x0b])));
      const undecodable = await garbage.finish();
      assert.deepEqual(
        [undecodable.status, undecodable.message, undecodable.trailers],
        [String(status.INTERNAL), 'Error deserializing request', undefined],
        'a trailers-only status',
      );
    });

    void it(`answers the valid request before ending on a malformed one (${route} path)`, async () => {
      // Issue 33, defect 8: one DATA frame holding a valid request and then an undecodable
      // message. The valid one is still running when the other is read; its answer must go out
      // before the call ends with the refusal.
      const s = rawStream(t.grpcTarget, headers);
      await s.write(Buffer.concat([frame(simpleRequest('valid', 2)), framed(Buffer.from([0x0b]))]));
      const answer = await s.finish();
      assert.deepEqual(
        [answer.status, answer.message],
        [String(status.INTERNAL), 'Error deserializing request'],
      );
      assert.deepEqual(
        answer.messages.map((m) => method.responseDeserialize(m).infer_response.id),
        ['valid'],
      );
    });

    void it(`carries a sequence's steps in order (${route} path)`, async () => {
      const s = rawStream(t.grpcTarget, headers);
      const step = (value: number, flags: object): object => ({
        model_name: 'sequence_accumulator',
        id: `v${value}`,
        parameters: { sequence_id: { int64_param: 77 }, ...flags },
        inputs: [{ name: 'INPUT', datatype: 'INT32', shape: [1, 1] }],
        raw_input_contents: [int32s([value])],
      });
      await s.write(frame(step(1, { sequence_start: { bool_param: true } })));
      await s.write(frame(step(2, {})));
      await s.write(frame(step(4, { sequence_end: { bool_param: true } })));
      const answer = await s.finish();
      assert.equal(answer.status, '0', answer.message);
      const sums = answer.messages.map((m) => {
        const r = method.responseDeserialize(m);
        assert.equal(r.error_message, '');
        const out = r.infer_response.outputs.findIndex((o: any) => o.name === 'OUTPUT');
        const bytes = Uint8Array.from(r.infer_response.raw_output_contents[out]);
        return [r.infer_response.id, new Int32Array(bytes.buffer)[0]];
      });
      assert.deepEqual(sums, [
        ['v1', 1],
        ['v2', 3],
        ['v4', 7],
      ]);
    });
  }

  void it('refuses a flagged-compressed message and a stream that ends inside a message (direct path)', async () => {
    // grpc-js takes a call with grpc-encoding itself; without one, a compressed flag is an error
    // (grpc-js would read the bytes as uncompressed), and so is a message cut off by the end.
    const flagged = rawStream(t.grpcTarget, {});
    await flagged.write(framed(Buffer.alloc(4), 1));
    const compressed = await flagged.finish();
    assert.equal(compressed.status, String(status.INTERNAL));
    assert.match(compressed.message, /compressed message/);

    const cut = rawStream(t.grpcTarget, {});
    await cut.write(frame(simpleRequest('cut', 1)).subarray(0, 20));
    const truncated = await cut.finish();
    assert.equal(truncated.status, String(status.INTERNAL));
    assert.match(truncated.message, /ended inside a message/);
  });
});
