// Benchmarks infernode (or any server speaking docs/websocket-protocol.md) over its streaming
// WebSocket protocol with msgpack frames: preflight the exact frame, fork the WebSocket load
// generator with the frames, sweep the levels. Server stats come from the HTTP statistics
// extension as for HTTP targets, so the breakdown columns mean the same thing.

import { MSGPACK_PROTOCOL, WS_PATH } from 'infernode/tooling';
import type { LoadLevel } from '../load/messages.js';
import type { ShardedInit } from '../load/sharded-engine.js';
import type { WsEngineInit } from '../load/ws-load-engine.js';
import { wsPreflight } from '../load/ws-preflight.js';
import { wsRequestPayload } from '../load/ws-request.js';
import type { InputSet } from '../model/input-data.js';
import type { BenchOptions } from '../options/bench-options.js';
import type { Progress } from '../report/progress.js';
import type { TargetResult } from '../report/result-types.js';
import { runGeneratorSweep } from './generator-sweep.js';
import { engineSettings, targetServers, type HttpTargetSpec } from './http-target.js';

export const WS_TRANSPORT = 'WebSocket msgpack';

export async function runWsTarget(
  spec: HttpTargetSpec,
  sets: readonly InputSet[],
  expectedOutputs: readonly string[],
  levels: readonly LoadLevel[],
  options: BenchOptions,
  progress: Progress,
): Promise<TargetResult> {
  const requests = sets.map((set) => wsRequestPayload(options.model, options.modelVersion, set));
  const first = requests[0];
  if (first === undefined) throw new Error('no input sets');
  for (const server of targetServers(spec)) {
    await wsPreflight(
      `ws://${spec.host}:${server.port}${WS_PATH}`,
      MSGPACK_PROTOCOL,
      first,
      expectedOutputs,
      options.requestTimeoutMs,
    );
  }

  const engine = (): WsEngineInit | ShardedInit<WsEngineInit> =>
    engineSettings(spec, (port) => ({
      host: spec.host,
      port,
      path: WS_PATH,
      subprotocol: MSGPACK_PROTOCOL,
      requests,
      sockets: options.wsConnections,
      maxConnections: options.maxConnections,
      requestTimeoutMs: options.requestTimeoutMs,
    }));
  return runGeneratorSweep(
    spec,
    {
      generator: 'ws-generator-process.js',
      engine,
      transport: WS_TRANSPORT,
      notes: [socketsNote(options)],
    },
    levels,
    options,
    progress,
  );
}

function socketsNote(options: BenchOptions): string {
  const perThread =
    options.wsConnections > 0
      ? `${options.wsConnections} WebSocket(s)`
      : options.sweep.kind === 'concurrency'
        ? 'one WebSocket per 64 outstanding requests'
        : 'WebSockets added while every open one has 64 requests in flight';
  return `${perThread} per generator thread, many requests in flight on each`;
}
