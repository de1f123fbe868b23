// Benchmarks infernode (or any server speaking Triton's GRPCInferenceService) over gRPC: unary
// ModelInfer calls, or (--streaming) ModelStreamInfer with many requests in flight per stream.
// Preflight the exact request bytes, fork the gRPC load generator with them, sweep the levels.
// Server stats come from the gRPC ModelStatistics, the twin of the HTTP extension the other
// targets read, so the breakdown columns mean the same thing.

import { grpcSharedMemoryMembers, type BenchRegions } from '../model/shm-regions.js';
import type { GrpcEngineInit } from '../load/grpc-load-engine.js';
import { grpcPreflight } from '../load/grpc-preflight.js';
import { grpcRequestPayload } from '../load/grpc-request.js';
import type { LoadLevel } from '../load/messages.js';
import type { ShardedInit } from '../load/sharded-engine.js';
import { fetchGrpcServerCounters, summedCounters } from '../measure/server-stats.js';
import { GrpcServiceClient } from '../model/grpc-service.js';
import type { InputSet } from '../model/input-data.js';
import type { BenchOptions } from '../options/bench-options.js';
import type { Progress } from '../report/progress.js';
import type { TargetResult } from '../report/result-types.js';
import { runGeneratorSweep } from './generator-sweep.js';
import { engineSettings, targetServers, type HttpTargetSpec } from './http-target.js';

export const GRPC_UNARY_TRANSPORT = 'gRPC unary';
export const GRPC_STREAM_TRANSPORT = 'gRPC stream';

/** `host:port` as grpc-js takes it (IPv6 literals in brackets). */
export function grpcAddress(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** `spec.host` and `spec.port` are the server's gRPC address. */
export async function runGrpcTarget(
  spec: HttpTargetSpec,
  sets: readonly InputSet[],
  expectedOutputs: readonly string[],
  levels: readonly LoadLevel[],
  options: BenchOptions,
  streaming: boolean,
  progress: Progress,
  regions?: BenchRegions,
): Promise<TargetResult> {
  const requests = sets.map((set, i) =>
    grpcRequestPayload(
      options.model,
      options.modelVersion,
      set,
      streaming,
      regions === undefined
        ? undefined
        : grpcSharedMemoryMembers(set, regions.inputs[i] ?? {}, regions.outputs),
    ),
  );
  const first = requests[0];
  if (first === undefined) throw new Error('no input sets');
  const servers = targetServers(spec);
  for (const server of servers) {
    await grpcPreflight(
      { host: spec.host, port: server.port, clientTimeoutMs: options.grpcClientTimeoutMs },
      first,
      streaming,
      expectedOutputs,
      options.requestTimeoutMs,
    );
  }

  // One statistics client per server; an N-process reference's counters are summed.
  const stats = servers.map((s) => new GrpcServiceClient(grpcAddress(spec.host, s.port)));
  try {
    const engine = (): GrpcEngineInit | ShardedInit<GrpcEngineInit> =>
      engineSettings(spec, (port) => ({
        host: spec.host,
        port,
        streaming,
        requests,
        maxConnections: options.maxConnections,
        requestTimeoutMs: options.requestTimeoutMs,
        clientTimeoutMs: options.grpcClientTimeoutMs,
      }));
    return await runGeneratorSweep(
      spec,
      {
        generator: 'grpc-generator-process.js',
        engine,
        transport: streaming ? GRPC_STREAM_TRANSPORT : GRPC_UNARY_TRANSPORT,
        notes: [connectionsNote(options, streaming)],
        counters: () =>
          summedCounters(
            stats.map(
              (client) => () =>
                fetchGrpcServerCounters(client, options.model, options.modelVersion),
            ),
          ),
      },
      levels,
      options,
      progress,
    );
  } finally {
    for (const client of stats) client.close();
  }
}

function connectionsNote(options: BenchOptions, streaming: boolean): string {
  const unit = streaming ? 'ModelStreamInfer stream (on its own channel)' : 'gRPC channel';
  const rule =
    options.sweep.kind === 'concurrency'
      ? `one ${unit} per 64 outstanding requests`
      : `${unit}s added while every open one has 64 requests in flight`;
  return `${rule} per generator thread, many requests in flight on each (its own HTTP/2 client, requests framed once)`;
}
