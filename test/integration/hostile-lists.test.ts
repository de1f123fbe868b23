// Oversized tensor lists against a real server (issue 33, defect 2): a 54 MB JSON body listing
// 900,000 inputs and a gRPC message of 2.5 M inputs are refused with the words they always got,
// quickly, while /v2/health/live on another connection keeps answering. Before the lists were
// counted while decoding, these took 9-11 s and 3-8 s, during which the health check waited too.
// The bounds are loose (this machine is shared), but an order of magnitude below those figures.

import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { TEST_FIXTURES } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const REFUSE_WITHIN_MS = 2_000;
const LIVE_WITHIN_MS = 1_000;

function jsonBody(n: number): Buffer {
  const one = '{"name":"INPUT0","datatype":"FP32","shape":[1],"data":[1]}';
  return Buffer.from(`{"inputs":[${Array.from({ length: n }, () => one).join(',')}]}`);
}

/** A framed ModelInferRequest for identity_fp32 with `n` inputs {name "x", FP32, shape [1]}. */
function grpcFrame(n: number): Buffer {
  const entry = Buffer.from([0x2a, 12, 0x0a, 1, 0x78, 0x12, 4, 0x46, 0x50, 0x33, 0x32, 0x1a, 1, 1]);
  const name = Buffer.from('identity_fp32');
  const body = Buffer.alloc(2 + name.length + n * entry.length);
  body[0] = 0x0a;
  body[1] = name.length;
  name.copy(body, 2);
  for (let i = 0; i < n; i++) entry.copy(body, 2 + name.length + i * entry.length);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** Polls /v2/health/live on its own connection; `stop` gives the slowest answer in ms. */
function probeLive(base: string): () => Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) =>
        http
          .get(`${base}/v2/health/live`, { agent }, (res) => res.resume().on('end', resolve))
          .on('error', reject),
      );
      slowest = Math.max(slowest, performance.now() - t0);
      await sleep(5);
    }
  })();
  return async () => {
    running = false;
    await loop;
    agent.destroy();
    return slowest;
  };
}

function postJson(
  base: string,
  body: Buffer,
): Promise<{ status: number; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = http.request(`${base}/v2/models/identity_fp32/infer`, { method: 'POST' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString(),
          ms: performance.now() - sent,
        }),
      );
    });
    req.on('error', reject);
    req.end(body, () => (sent = performance.now()));
  });
}

function grpcInfer(
  target: string,
  frame: Buffer,
): Promise<{ status: string; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${target}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': '/inference.GRPCInferenceService/ModelInfer',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let sent = 0;
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (trailers = h));
    stream.on('trailers', (t) => (trailers = { ...trailers, ...t }));
    stream.on('error', reject);
    stream.resume().on('end', () => {
      session.close();
      resolve({
        status: String(trailers['grpc-status']),
        text: decodeURIComponent(String(trailers['grpc-message'])),
        ms: performance.now() - sent,
      });
    });
    stream.end(frame, () => (sent = performance.now()));
  });
}

void describe('oversized tensor lists against a real server', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      modelRepositories: [path.join(TEST_FIXTURES, 'repository')],
      modelControlMode: 'explicit',
      loadModels: ['identity_fp32'],
    });
  });
  after(async () => {
    await t.close();
  });

  void it('refuses 900,000 JSON inputs quickly, health answering meanwhile', async () => {
    const body = jsonBody(900_000);
    const stop = probeLive(t.base);
    const answer = await postJson(t.base, body);
    const slowest = await stop();
    assert.equal(answer.status, 400);
    assert.deepEqual(JSON.parse(answer.text), {
      error: 'the request lists more than 1024 inputs; at most 1024 are accepted',
    });
    assert.ok(answer.ms < REFUSE_WITHIN_MS, `refused after ${answer.ms.toFixed(0)} ms`);
    assert.ok(slowest < LIVE_WITHIN_MS, `health/live took up to ${slowest.toFixed(0)} ms`);
  });

  void it('refuses a gRPC message of 2.5 M inputs quickly, health answering meanwhile', async () => {
    const frame = grpcFrame(2_500_000);
    const stop = probeLive(t.base);
    const answer = await grpcInfer(t.grpcTarget, frame);
    const slowest = await stop();
    assert.equal(answer.status, '3');
    assert.equal(
      answer.text,
      'a request may name at most 1024 inputs and 1024 outputs, got more than 1024 inputs',
    );
    assert.ok(answer.ms < REFUSE_WITHIN_MS, `refused after ${answer.ms.toFixed(0)} ms`);
    assert.ok(slowest < LIVE_WITHIN_MS, `health/live took up to ${slowest.toFixed(0)} ms`);
  });
});
