#!/usr/bin/env node
// The hostile-client bench (issue 33): a spawned infernode on a repository holding identity_fp32
// takes 100 never-reading ModelStreamInfer streams on one HTTP/2 connection, then (after a fresh
// start) 4 never-reading WebSockets; for each, its RSS before, at the peak and `--after-secs`
// after the clients disconnect, and the peak of its client-memory gauge. Prints one JSON line per
// scenario; extra arguments after `--` go to infernode (e.g. --client-memory-budget=0).
//
//   node dist/bench/hostile-clients.js [--front-end uws|node] [--after-secs 10] [-- <server flags>]

import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runEntry } from './entry.js';
import { REPO_ROOT } from './paths.js';
import { stalledGrpcStreams, stalledWebSockets } from './soak/hostile-clients.js';
import { measureHostile, mib, type HostileMeasurement } from './soak/hostile-scenario.js';
import { startInfernode, type ServerProcess } from './targets/server-process.js';

const IDENTITY = path.join(REPO_ROOT, 'test', 'fixtures', 'repository', 'identity_fp32');

async function scenario(
  name: string,
  repo: string,
  serverArgs: readonly string[],
  afterMs: number,
  open: (server: ServerProcess) => ReturnType<typeof stalledGrpcStreams>,
): Promise<void> {
  const server = await startInfernode(repo, serverArgs);
  try {
    const metricsPort = metricsPortOf(server);
    const m: HostileMeasurement = await measureHostile(() => open(server), {
      pid: server.pid,
      metricsBase: `http://127.0.0.1:${metricsPort}`,
      stallMs: 12_000,
      afterMs,
    });
    process.stdout.write(
      JSON.stringify({
        scenario: name,
        serverArgs,
        baseline: mib(m.baselineRss),
        peakGrowth: mib(m.peakRss - m.baselineRss),
        [`growth${afterMs / 1000}sAfter`]: mib(m.afterRss - m.baselineRss),
        requestsTaken: m.sent,
        gaugePeak: m.peakReserved === null ? null : mib(m.peakReserved),
        endedByServer: m.ends.length,
      }) + '\n',
    );
  } finally {
    await server.stop();
  }
}

function metricsPortOf(server: ServerProcess): number {
  for (const line of server.lines) {
    if (!line.includes('"metricsPort"')) continue;
    return (JSON.parse(line) as { metricsPort: number }).metricsPort;
  }
  return 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      'front-end': { type: 'string', default: 'auto' },
      'after-secs': { type: 'string', default: '10' },
    },
  });
  const afterMs = Number(values['after-secs']) * 1000;
  const serverArgs = [`--http-front-end=${values['front-end']}`, ...positionals];
  const repo = await mkdtemp(path.join(os.tmpdir(), 'infernode-hostile-'));
  try {
    await cp(IDENTITY, path.join(repo, 'identity_fp32'), { recursive: true });
    await scenario('100 stalled gRPC streams', repo, serverArgs, afterMs, (s) =>
      stalledGrpcStreams(`127.0.0.1:${s.grpcPort ?? 0}`, 100, 64),
    );
    await scenario('4 stalled WebSockets', repo, serverArgs, afterMs, (s) =>
      stalledWebSockets(`ws://127.0.0.1:${s.port}/v2/ws`, 4, 1024),
    );
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
  return 0;
}

runEntry('hostile-clients', main);
