// ModelInfer's two server paths: plain calls are served on their HTTP/2 stream directly
// (src/grpc/unary-infer.ts), calls with a deadline (or a restriction on the RPC) go through
// grpc-js. Both must answer alike: the same response, the same status codes and texts for an
// oversized, undecodable or malformed request, and the catalog's status for a refused one.

import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { grpcClient, inferenceMethods, type GrpcTestClient } from '../helpers/grpc-client.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const MODEL_INFER = '/inference.GRPCInferenceService/ModelInfer';

const int32s = (n: number, from: number): Buffer =>
  Buffer.from(Int32Array.from({ length: n }, (_, i) => from + i).buffer);

function simpleRequest(width = 16): object {
  return {
    model_name: 'simple',
    id: 'r1',
    inputs: ['INPUT0', 'INPUT1'].map((name) => ({ name, datatype: 'INT32', shape: [1, width] })),
    raw_input_contents: [int32s(width, 0), int32s(width, 100)],
  };
}

interface RawAnswer {
  readonly status: string | undefined;
  readonly message: string | undefined;
  readonly body: Buffer;
}

/** One call from a bare HTTP/2 client: the exact body bytes, no deadline, no grpc-js. */
async function rawCall(
  target: string,
  body: Buffer,
  extra: http2.OutgoingHttpHeaders = {},
): Promise<RawAnswer> {
  const session = http2.connect(`http://${target}`);
  try {
    const stream = session.request({
      ':method': 'POST',
      ':path': MODEL_INFER,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...extra,
    });
    const headers: http2.IncomingHttpHeaders[] = [];
    const chunks: Buffer[] = [];
    stream.on('response', (h) => headers.push(h));
    stream.on('trailers', (h) => headers.push(h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.end(body);
    await new Promise((resolve) => stream.on('close', resolve));
    const last = headers.find((h) => h['grpc-status'] !== undefined);
    return {
      status: last?.['grpc-status'] as string | undefined,
      message:
        last?.['grpc-message'] === undefined
          ? undefined
          : decodeURIComponent(String(last['grpc-message'])),
      body: Buffer.concat(chunks),
    };
  } finally {
    session.close();
  }
}

const framed = (message: Buffer): Buffer => {
  const b = Buffer.alloc(5 + message.length);
  b.writeUInt32BE(message.length, 1);
  message.copy(b, 5);
  return b;
};

/** A deadline sends grpc-timeout, which takes the call through grpc-js. */
const DEADLINE = { deadline: () => Date.now() + 30_000 };

void describe('gRPC ModelInfer: the direct path and the grpc-js path answer alike', () => {
  let t: TestServer;
  let c: GrpcTestClient;
  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({ modelRepositories: [repo], grpcMaxInputSize: 4096 });
    c = grpcClient(t.grpcTarget);
  });
  after(async () => {
    c.close();
    await t.close();
  });

  /** ModelInfer through the generated stub, with or without a deadline. */
  function infer(request: object, withDeadline: boolean): Promise<any> {
    return new Promise((resolve, reject) => {
      const options = withDeadline ? { deadline: DEADLINE.deadline() } : {};
      c.stub.ModelInfer(request, options, (err: unknown, res: unknown) =>
        err === null ? resolve(res) : reject(err),
      );
    });
  }

  void it('gives the same response on both paths', async () => {
    const direct = await infer(simpleRequest(), false);
    const viaGrpcJs = await infer(simpleRequest(), true);
    assert.deepEqual(direct, viaGrpcJs);
    assert.equal(direct.id, 'r1');
    assert.deepEqual(
      direct.outputs.map((o: any) => o.name),
      ['OUTPUT0', 'OUTPUT1'],
    );
    const sum = new Int32Array(new Uint8Array(direct.raw_output_contents[0]).buffer);
    assert.deepEqual(
      [...sum],
      Array.from({ length: 16 }, (_, i) => 100 + 2 * i),
    );
  });

  void it('refuses a wrong shape with INVALID_ARGUMENT and the same text on both paths', async () => {
    const bad = {
      ...simpleRequest(),
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 3] },
        (simpleRequest() as any).inputs[1],
      ],
    };
    const texts: string[] = [];
    for (const withDeadline of [false, true]) {
      await assert.rejects(infer(bad, withDeadline), (e: any) => {
        assert.equal(e.code, status.INVALID_ARGUMENT, e.details);
        texts.push(e.details);
        return true;
      });
    }
    assert.equal(texts[0], texts[1]);
  });

  void it('refuses a message over --grpc-max-input-size with RESOURCE_EXHAUSTED on both paths', async () => {
    for (const withDeadline of [false, true]) {
      await assert.rejects(infer(simpleRequest(1024), withDeadline), (e: any) => {
        assert.equal(e.code, status.RESOURCE_EXHAUSTED, e.details);
        assert.match(e.details, /larger than max \(\d+ vs\.? 4096\)/);
        return true;
      });
    }
  });

  void it('answers a bare HTTP/2 client, and names what is wrong with a malformed body', async () => {
    const ok = await rawCall(
      t.grpcTarget,
      framed(inferenceMethods['ModelInfer']!.requestSerialize(simpleRequest())),
    );
    assert.equal(ok.status, '0');
    const answer = inferenceMethods['ModelInfer']!.responseDeserialize(ok.body.subarray(5));
    assert.equal(answer.id, 'r1');

    const undecodable = await rawCall(t.grpcTarget, framed(Buffer.from([0x0b])));
    assert.deepEqual(
      [undecodable.status, undecodable.message],
      [String(status.INTERNAL), 'Error deserializing request'],
    );
    const none = await rawCall(t.grpcTarget, Buffer.alloc(0));
    assert.equal(none.status, String(status.UNIMPLEMENTED));
    assert.match(none.message ?? '', /no request message/);
    const two = await rawCall(
      t.grpcTarget,
      Buffer.concat([framed(Buffer.alloc(0)), framed(Buffer.alloc(0))]),
    );
    assert.equal(two.status, String(status.UNIMPLEMENTED));
    assert.match(two.message ?? '', /second request message/);
    const cut = await rawCall(t.grpcTarget, framed(Buffer.alloc(10)).subarray(0, 8));
    assert.equal(cut.status, String(status.INTERNAL));
    assert.match(cut.message ?? '', /ended inside its message/);
  });
});

void describe('gRPC ModelInfer with --grpc-infer-response-compression-level', () => {
  let t: TestServer;
  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({
      modelRepositories: [repo],
      grpcInferResponseCompressionLevel: 'high',
    });
  });
  after(async () => {
    await t.close();
  });

  void it('answers uncompressed even to a gzip client, as grpc-js does on every path', async () => {
    const raw = await rawCall(
      t.grpcTarget,
      framed(inferenceMethods['ModelInfer']!.requestSerialize(simpleRequest())),
      { 'grpc-accept-encoding': 'identity,gzip' },
    );
    assert.equal(raw.status, '0');
    assert.equal(raw.body[0], 0, 'grpc-js has no response compression');
    const answer = inferenceMethods['ModelInfer']!.responseDeserialize(raw.body.subarray(5));
    assert.equal(answer.id, 'r1');
  });
});
