// Timed windows of JSON-over-HTTP load for the benches that report a few figures per arm
// (noisy-neighbour, shadow, ensemble): a closed loop of `concurrency` clients sending back to
// back, or an open loop sending at a fixed rate whatever the answers, both over keep-alive
// connections of their own, with each latency kept in milliseconds for the window's p50/p99.
// The load engines under bench/load/ serve the main sweep; these windows trade their speed for a
// client that can chain requests and read answers (an ensemble's steps).

import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Where to send: a server's host and port (a ServerProcess). */
export interface HttpTarget {
  readonly host: string;
  readonly port: number;
}

export interface JsonReply {
  /** The HTTP status. */
  readonly status: number;
  readonly body: Buffer;
}

/** POSTs `body` (JSON) to `path`; rejects only when no answer came (a connection error). */
export function postJson(
  agent: http.Agent,
  target: HttpTarget,
  path: string,
  body: Buffer,
  headers: Readonly<Record<string, string>> = {},
): Promise<JsonReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.host,
        port: target.port,
        agent,
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A closed-loop window's measured requests: latencies in ms (unsorted), and failures. */
export interface ClosedLoopWindow {
  readonly latencies: number[];
  readonly errors: number;
}

/**
 * `concurrency` clients, each calling `send(agent, k)` back to back (`k`: its request number,
 * client c sending c, c + concurrency, ...) for `warmupSecs` then `measureSecs`. A request counts
 * when it starts after the warm-up and ends within the window; a rejection counts as an error.
 */
export async function closedLoop(
  concurrency: number,
  warmupSecs: number,
  measureSecs: number,
  send: (agent: http.Agent, k: number) => Promise<void>,
): Promise<ClosedLoopWindow> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const measureFrom = performance.now() + warmupSecs * 1000;
  const end = measureFrom + measureSecs * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      for (let k = client; performance.now() < end; k += concurrency) {
        const t0 = performance.now();
        try {
          await send(agent, k);
          const t1 = performance.now();
          if (t0 >= measureFrom && t1 <= end) latencies.push(t1 - t0);
        } catch {
          if (t0 >= measureFrom) errors += 1;
        }
      }
    }),
  );
  agent.destroy();
  return { latencies, errors };
}

/** An open-loop window: requests sent, answers by status (0: none came), latencies of 200s in ms. */
export interface OpenLoopWindow {
  readonly sent: number;
  readonly statuses: ReadonlyMap<number, number>;
  readonly latencies: number[];
}

/** Calls `send(agent)` every 1/rps s for `secs`, answered or not, then waits for every answer. */
export async function openLoop(
  rps: number,
  secs: number,
  send: (agent: http.Agent) => Promise<JsonReply>,
): Promise<OpenLoopWindow> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + secs * 1000;
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  for (let i = 0; ; i++) {
    const at = start + (i * 1000) / rps;
    if (at >= end) break;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    sent++;
    const t0 = performance.now();
    const answered = send(agent).then(
      (r) => r.status,
      () => 0,
    );
    inFlight.push(
      answered.then((status) => {
        if (status === 200) latencies.push(performance.now() - t0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { sent, statuses, latencies };
}

/** The `p`th percentile (0-100) of ascending `sorted`, as the nearest rank below; 0 when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** A window's latencies over `secs` measured seconds: how many, per second, p50 and p99 (ms). */
export function latencyFigures(
  latencies: readonly number[],
  secs: number,
): {
  readonly requests: number;
  readonly perSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
} {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    perSec: sorted.length / secs,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}
