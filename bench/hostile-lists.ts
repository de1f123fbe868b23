#!/usr/bin/env node
// Oversized tensor lists (issue 33, defect 2): how long a fresh infernode takes to refuse a JSON
// body and a gRPC ModelInfer message that list far more inputs than MAX_TENSORS, how long
// /v2/health/live on another connection waits meanwhile, and the server's RSS growth. Prints one
// JSON line per case; nothing is published.
//
//   node dist/bench/hostile-lists.js [--json-inputs 900000] [--grpc-inputs 2500000]
//                                    [--front-end uws|node]

import { cp, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { commandLine, runEntry } from './entry.js';
import { processMemory } from './measure/process-memory.js';
import { REPO_ROOT } from './paths.js';
import { startInfernode, type ServerProcess } from './targets/server-process.js';

const MODEL = 'identity_fp32';
const MIB = 2 ** 20;

interface CaseResult {
  readonly case: string;
  readonly inputs: number;
  readonly bodyMiB: number;
  readonly status: string;
  readonly message: string;
  /** From the last byte sent to the answer's status. */
  readonly refuseMs: number;
  readonly liveMaxMs: number;
  readonly liveProbes: number;
  readonly rssGrowthMiB: number;
}

function jsonBody(n: number): Buffer {
  const one = Buffer.from('{"name":"INPUT0","datatype":"FP32","shape":[1],"data":[1]}');
  const parts: Buffer[] = [Buffer.from('{"inputs":[')];
  for (let i = 0; i < n; i++) parts.push(i === 0 ? one : Buffer.concat([Buffer.from(','), one]));
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

/** A ModelInferRequest: model_name, then `n` inputs {name "x", datatype "FP32", shape [1]}. */
function grpcMessage(n: number): Buffer {
  const tensor = Buffer.from([0x0a, 1, 0x78, 0x12, 4, 0x46, 0x50, 0x33, 0x32, 0x1a, 1, 1]);
  const entry = Buffer.concat([Buffer.from([0x2a, tensor.length]), tensor]);
  const name = Buffer.from(MODEL);
  const head = Buffer.concat([Buffer.from([0x0a, name.length]), name]);
  const body = Buffer.alloc(head.length + n * entry.length);
  head.copy(body, 0);
  for (let i = 0; i < n; i++) entry.copy(body, head.length + i * entry.length);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** GETs /v2/health/live on its own keep-alive connection until stopped; the slowest answer. */
function probeLive(base: string): { stop: () => Promise<{ maxMs: number; probes: number }> } {
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
      await sleep(10);
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

async function measure(
  server: ServerProcess,
  name: string,
  inputs: number,
  bytes: number,
  send: () => Promise<{ status: string; message: string; sentAt: number }>,
): Promise<CaseResult> {
  const before = processMemory(server.pid)?.rssBytes ?? 0;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, processMemory(server.pid)?.rssBytes ?? 0);
  }, 20);
  const probe = probeLive(server.base);
  await sleep(100);
  const answer = await send();
  const refuseMs = performance.now() - answer.sentAt;
  await sleep(100);
  const live = await probe.stop();
  clearInterval(sampler);
  return {
    case: name,
    inputs,
    bodyMiB: Math.round((bytes / MIB) * 10) / 10,
    status: answer.status,
    message: answer.message.slice(0, 120),
    refuseMs: Math.round(refuseMs),
    liveMaxMs: Math.round(live.maxMs),
    liveProbes: live.probes,
    rssGrowthMiB: Math.round((peak - before) / MIB),
  };
}

function postJson(
  base: string,
  body: Buffer,
): Promise<{ status: string; message: string; sentAt: number }> {
  return new Promise((resolve, reject) => {
    let sentAt = 0;
    const req = http.request(
      `${base}/v2/models/${MODEL}/infer`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: String(res.statusCode),
            message: Buffer.concat(chunks).toString('utf8'),
            sentAt,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body, () => (sentAt = performance.now()));
  });
}

function grpcInfer(
  port: number,
  message: Buffer,
): Promise<{ status: string; message: string; sentAt: number }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
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
    stream.resume();
    stream.on('end', () => {
      session.close();
      resolve({
        status: `grpc ${String(headers['grpc-status'])}`,
        message: decodeURIComponent(String(headers['grpc-message'] ?? '')),
        sentAt,
      });
    });
    stream.on('error', reject);
    stream.end(message, () => (sentAt = performance.now()));
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'json-inputs': { type: 'string', default: '900000' },
      'grpc-inputs': { type: 'string', default: '2500000' },
      'front-end': { type: 'string', default: 'uws' },
    },
  });
  const repo = await mkdtemp(path.join(os.tmpdir(), 'hostile-lists-'));
  await cp(path.join(REPO_ROOT, 'test', 'fixtures', 'repository', MODEL), path.join(repo, MODEL), {
    recursive: true,
  });
  const server = await startInfernode(repo, [`--http-front-end=${values['front-end']}`]);
  try {
    console.log(JSON.stringify({ command: commandLine('bench:hostile', argv) }));
    const jsonInputs = Number(values['json-inputs']);
    const body = jsonBody(jsonInputs);
    console.log(
      JSON.stringify(
        await measure(server, 'json', jsonInputs, body.length, () => postJson(server.base, body)),
      ),
    );
    const grpcInputs = Number(values['grpc-inputs']);
    const message = grpcMessage(grpcInputs);
    const port = server.grpcPort ?? 0;
    console.log(
      JSON.stringify(
        await measure(server, 'grpc', grpcInputs, message.length, () => grpcInfer(port, message)),
      ),
    );
  } finally {
    await server.stop();
    await rm(repo, { recursive: true, force: true });
  }
  return 0;
}

runEntry('hostile-lists', main);
