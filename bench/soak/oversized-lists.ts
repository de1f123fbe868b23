// Requests that list far more tensors than MAX_TENSORS (issue 33, defect 2), and the clients that
// send them and watch /v2/health/live meanwhile: shared by the bench (bench/hostile-lists.ts) and
// its integration test.

import http from 'node:http';
import http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';

/** A JSON infer body with `n` inputs {name INPUT0, FP32, shape [1], data [1]}. */
export function oversizedJsonBody(n: number): Buffer {
  const one = Buffer.from('{"name":"INPUT0","datatype":"FP32","shape":[1],"data":[1]}');
  const parts: Buffer[] = [Buffer.from('{"inputs":[')];
  for (let i = 0; i < n; i++) parts.push(i === 0 ? one : Buffer.concat([Buffer.from(','), one]));
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

/** A framed ModelInferRequest: model_name, then `n` inputs {name "x", datatype "FP32", shape [1]}. */
export function oversizedGrpcFrame(n: number, model: string): Buffer {
  const tensor = Buffer.from([0x0a, 1, 0x78, 0x12, 4, 0x46, 0x50, 0x33, 0x32, 0x1a, 1, 1]);
  const entry = Buffer.concat([Buffer.from([0x2a, tensor.length]), tensor]);
  const name = Buffer.from(model);
  const head = Buffer.concat([Buffer.from([0x0a, name.length]), name]);
  const body = Buffer.alloc(head.length + n * entry.length);
  head.copy(body, 0);
  for (let i = 0; i < n; i++) entry.copy(body, head.length + i * entry.length);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** An answer, and the milliseconds from the last byte sent to its end. */
export interface TimedAnswer {
  /** HTTP: the status code; gRPC: `grpc <grpc-status>`. */
  readonly status: string;
  /** HTTP: the body; gRPC: grpc-message, decoded. */
  readonly message: string;
  readonly ms: number;
}

/** GETs /v2/health/live on its own keep-alive connection until stopped; the slowest answer. */
export function probeLive(base: string): {
  stop: () => Promise<{ maxMs: number; probes: number }>;
} {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  let maxMs = 0;
  let probes = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) => {
        http
          .get(`${base}/v2/health/live`, { agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
      maxMs = Math.max(maxMs, performance.now() - t0);
      probes++;
      await sleep(5);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      return { maxMs, probes };
    },
  };
}

/** POSTs `body` to `model`'s infer route on a connection of its own. */
export function postInferBody(base: string, model: string, body: Buffer): Promise<TimedAnswer> {
  return new Promise((resolve, reject) => {
    let sentAt = 0;
    const req = http.request(
      `${base}/v2/models/${model}/infer`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: String(res.statusCode),
            message: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - sentAt,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body, () => (sentAt = performance.now()));
  });
}

/** Sends one framed ModelInfer message to `target` (host:port) on an HTTP/2 connection of its own. */
export function grpcInferFrame(target: string, frame: Buffer): Promise<TimedAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${target}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': '/inference.GRPCInferenceService/ModelInfer',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let sentAt = 0;
    let headers: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (t) => (headers = { ...headers, ...t }));
    stream.on('error', reject);
    stream.resume().on('end', () => {
      session.close();
      resolve({
        status: `grpc ${String(headers['grpc-status'])}`,
        message: decodeURIComponent(String(headers['grpc-message'] ?? '')),
        ms: performance.now() - sentAt,
      });
    });
    stream.end(frame, () => (sentAt = performance.now()));
  });
}
