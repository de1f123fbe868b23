// The rolling restart behind a real balancer: three replicas on loopback behind HAProxy or nginx, a
// steady stream of infer requests through the balancer from `lanes` keep-alive clients, and, after
// a steady period, each replica in turn stopped with SIGTERM (it drains), started again on its
// port, and given time to rejoin the rotation. Every request is counted: any answer but a 200
// with the right sum, or a connection error, is a failure. Latency is split into the steady
// period and the restarts.

import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cp } from 'node:fs/promises';
import { DEFAULT_MODEL_REPOSITORY } from '../paths.js';
import { startBalancer, type BalancerKind } from './balancer.js';
import { startReplica, type Replica } from './replica.js';

export interface RollingOptions {
  readonly balancer: BalancerKind;
  readonly replicas: number;
  readonly lanes: number;
  /** Load before the first restart: the steady-state baseline. */
  readonly steadySecs: number;
  /** Wait after a replica is ready again before the next restart (the balancer's rejoin). */
  readonly rejoinMs: number;
  /** Restart rounds: each restarts every replica once. */
  readonly rounds: number;
}

export interface PhaseStats {
  readonly requests: number;
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface RollingResult {
  readonly balancer: BalancerKind;
  readonly replicas: number;
  readonly lanes: number;
  readonly restarts: number;
  /** Exit statuses of the replicas stopped (all 0 when every drain finished). */
  readonly exitCodes: readonly (number | string)[];
  readonly sent: number;
  readonly failed: number;
  /** The first few failures, as "status: body" or the error message. */
  readonly failures: readonly string[];
  readonly steady: PhaseStats;
  readonly restarting: PhaseStats;
  readonly durationSecs: number;
}

/** A JSON infer request for `simple` (OUTPUT0 = INPUT0 + INPUT1 = i + 1). */
const BODY = JSON.stringify({
  inputs: [
    { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: [...Array(16).keys()] },
    { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
  ],
});
const EXPECTED = JSON.stringify(Array.from({ length: 16 }, (_, i) => i + 1));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Sample {
  readonly at: number;
  readonly ms: number;
  readonly ok: boolean;
}

function infer(agent: http.Agent, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v2/models/simple/infer',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 200) return resolve(`${res.statusCode}: ${text.slice(0, 200)}`);
          const doc = JSON.parse(text) as { outputs: { name: string; data: number[] }[] };
          const sum = doc.outputs.find((o) => o.name === 'OUTPUT0')?.data;
          resolve(JSON.stringify(sum) === EXPECTED ? undefined : `wrong answer: ${text}`);
        });
        res.on('error', (err) => resolve(`response: ${err.message}`));
      },
    );
    req.on('error', (err) => resolve(`request: ${err.message}`));
    req.end(BODY);
  });
}

function stats(samples: readonly Sample[]): PhaseStats {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    requests: samples.length,
    failed: samples.filter((s) => !s.ok).length,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(ms.at(-1) ?? 0),
  };
}

export async function rollingRestart(opts: RollingOptions): Promise<RollingResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-rolling-'));
  const repository = path.join(dir, 'models');
  await cp(path.join(DEFAULT_MODEL_REPOSITORY, 'simple'), path.join(repository, 'simple'), {
    recursive: true,
  });
  const ports = await Promise.all(Array.from({ length: opts.replicas }, freePort));
  const replicas: Replica[] = await Promise.all(ports.map((p) => startReplica(repository, p)));
  const lbPort = await freePort();
  const balancer = await startBalancer(opts.balancer, path.join(dir, 'lb'), lbPort, ports);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.lanes });
  const samples: Sample[] = [];
  const failures: string[] = [];
  const exitCodes: (number | string)[] = [];
  let running = true;
  const t0 = performance.now();
  try {
    // The balancer is up once a request goes through.
    for (let i = 0; (await infer(agent, lbPort)) !== undefined; i++) {
      if (i > 100) throw new Error(`${opts.balancer} did not pass a request in 5 s`);
      await sleep(50);
    }
    const lanes = Array.from({ length: opts.lanes }, async () => {
      while (running) {
        const start = performance.now();
        const failure = await infer(agent, lbPort);
        samples.push({ at: start, ms: performance.now() - start, ok: failure === undefined });
        if (failure !== undefined && failures.length < 10) failures.push(failure);
      }
    });
    await sleep(opts.steadySecs * 1000);
    const restartsFrom = performance.now();
    for (let round = 0; round < opts.rounds; round++) {
      for (let i = 0; i < replicas.length; i++) {
        exitCodes.push(await (replicas[i] as Replica).stop());
        replicas[i] = await startReplica(repository, ports[i] as number);
        await sleep(opts.rejoinMs);
      }
    }
    const restartsTo = performance.now();
    running = false;
    await Promise.all(lanes);
    const steady = samples.filter((s) => s.at < restartsFrom);
    const restarting = samples.filter((s) => s.at >= restartsFrom && s.at < restartsTo);
    return {
      balancer: opts.balancer,
      replicas: opts.replicas,
      lanes: opts.lanes,
      restarts: exitCodes.length,
      exitCodes,
      sent: samples.length,
      failed: samples.filter((s) => !s.ok).length,
      failures,
      steady: stats(steady),
      restarting: stats(restarting),
      durationSecs: Math.round((performance.now() - t0) / 100) / 10,
    };
  } finally {
    running = false;
    agent.destroy();
    await balancer.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
